import type { z } from 'zod';
import type { PermissionRequest } from '../access.ts';
import type { ErrorCode } from '../errors.ts';
import { strictRequest } from './strict-request.ts';

/** The processes that answer API routes behind the gateway. */
export type ServiceName = 'forms' | 'ingest' | 'billing' | 'notifications' | 'orgs';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route's callers authenticate:
 * - `public`: no identity; a client's identity header and cookies are dropped;
 * - `user`: a signed-in user (session), no organization needed;
 * - `org`: a member of the active organization (session), or an API key of it where `apiKey` allows.
 */
export type AuthMode = 'public' | 'user' | 'org';

/** Who may call a route and who answers it: what the gateway enforces, before any service sees the request. */
export interface RouteAccess {
  method: HttpMethod;
  /** Express / path-to-regexp syntax: `/api/v1/forms/:formId`. */
  path: string;
  /** `gateway`: answered by the gateway itself (accounts, sessions, API keys, site); `ingest`: the public endpoint. */
  service: ServiceName | 'gateway';
  auth: AuthMode;
  /** What the caller's role must grant; checked by the gateway, and again by the service. */
  permission?: PermissionRequest;
  /** Which API key scope may call it; absent: API keys are refused (browser sessions only). */
  apiKey?: 'read' | 'write';
}

/** A success answer: a JSON body of `schema`, other media types (`content`), or none (204, 303). */
export interface ResponseSpec {
  status: number;
  description: string;
  schema?: z.ZodType;
  /** Non-JSON bodies: media type → JSON Schema of the body as text or bytes. */
  content?: Record<string, Record<string, unknown>>;
  /** A redirect: `Location` is set. */
  redirect?: boolean;
}

/** What a service parses a request with: path parameters, query string, JSON body. */
export interface RouteRequest {
  /** Absent: every path parameter is a string. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
}

/**
 * One endpoint of the API, the only place it is written: the gateway's access rules, the schemas its service
 * validates the request with, its answers and the error codes it raises itself (those every route of its kind can
 * answer — authentication, validation, an unavailable service — follow from the access rules). The OpenAPI
 * description and the client's types are generated from it.
 */
export interface RouteDefinition extends RouteAccess {
  tag: string;
  summary: string;
  description?: string;
  request?: RouteRequest;
  /** The success answers. */
  responses: ResponseSpec[];
  errors?: ErrorCode[];
}

/**
 * A route of the table, keeping its schemas' own types (`API_ROUTES.updateForm.request.body` is that schema), its
 * request body and query made strict (`strictRequest`): an unknown key is refused, never ignored.
 */
export const defineRoute = <Route extends RouteDefinition>(route: Route): Route => {
  const request = route.request;
  if (!request) return route;
  return {
    ...route,
    request: {
      ...request,
      ...(request.body ? { body: strictRequest(request.body) } : {}),
      ...(request.query ? { query: strictRequest(request.query) } : {}),
    },
  };
};

/**
 * The access rules of a route of the active organization: its members (sessions) and its API keys, `read` keys for
 * a GET and `write` keys for the others; `permission`: what the member's role (or the key's) must grant.
 */
export const orgRoute = (
  method: HttpMethod,
  path: string,
  service: RouteAccess['service'],
  permission?: PermissionRequest,
): RouteAccess => ({
  method,
  path,
  service,
  auth: 'org',
  apiKey: method === 'GET' ? 'read' : 'write',
  ...(permission ? { permission } : {}),
});

export const json = (status: number, description: string, schema: z.ZodType): ResponseSpec => ({
  status,
  description,
  schema,
});
export const noContent = (description = 'Done; no body'): ResponseSpec => ({ status: 204, description });
