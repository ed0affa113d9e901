import type { PermissionRequest } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { match } from 'path-to-regexp';

export type ServiceName = 'forms' | 'ingest' | 'billing' | 'notifications' | 'orgs';
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * How a route's callers authenticate:
 * - `public`: no identity; a client's identity header and cookies are dropped;
 * - `user`: a signed-in user (session), no organization needed;
 * - `org`: a member of the active organization (session), or an API key of it where `apiKey` allows.
 */
export type AuthMode = 'public' | 'user' | 'org';

/** One endpoint of the API: the gateway's only routing and access rules. */
export interface RouteSpec {
  method: Method;
  path: string;
  /** `gateway`: answered by the gateway itself (accounts, sessions, API keys). */
  service: ServiceName | 'gateway';
  auth: AuthMode;
  /** What the caller's role must grant; checked here, and again by the service. */
  permission?: PermissionRequest;
  /** Which API key scope may call it; absent: API keys are refused (browser sessions only). */
  apiKey?: 'read' | 'write';
}

const org = (
  method: Method,
  path: string,
  service: RouteSpec['service'],
  extra: Partial<RouteSpec> = {},
): RouteSpec => ({ method, path, service, auth: 'org', apiKey: method === 'GET' ? 'read' : 'write', ...extra });

export const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/api/v1/session', service: 'gateway', auth: 'user' },
  { method: 'GET', path: '/api/v1/users/by-email/:email', service: 'gateway', auth: 'public' },
  { method: 'GET', path: '/api/v1/site', service: 'gateway', auth: 'public' },
  { method: 'GET', path: '/api/v1/openapi.json', service: 'gateway', auth: 'public' },
  { method: 'GET', path: '/api/v1/plans', service: 'billing', auth: 'public' },
  org('GET', '/api/v1/api-keys', 'gateway', { apiKey: undefined, permission: { apiKey: ['read'] } }),
  org('POST', '/api/v1/api-keys', 'gateway', { apiKey: undefined, permission: { apiKey: ['create'] } }),
  org('DELETE', '/api/v1/api-keys/:keyId', 'gateway', { apiKey: undefined, permission: { apiKey: ['delete'] } }),
  org('GET', '/api/v1/forms', 'forms'),
  org('POST', '/api/v1/forms', 'forms', { permission: { form: ['create'] } }),
  org('GET', '/api/v1/forms/:formId', 'forms'),
  org('PATCH', '/api/v1/forms/:formId', 'forms', { permission: { form: ['update'] } }),
  org('DELETE', '/api/v1/forms/:formId', 'forms', { permission: { form: ['delete'] } }),
  org('GET', '/api/v1/forms/:formId/stats', 'forms'),
  org('GET', '/api/v1/forms/:formId/submissions', 'forms'),
  org('GET', '/api/v1/forms/:formId/submissions/export', 'forms'),
  org('POST', '/api/v1/forms/:formId/submissions/bulk', 'forms', { permission: { form: ['update'] } }),
  org('GET', '/api/v1/forms/:formId/submissions/:submissionId', 'forms'),
  org('PATCH', '/api/v1/forms/:formId/submissions/:submissionId', 'forms', { permission: { form: ['update'] } }),
  org('DELETE', '/api/v1/forms/:formId/submissions/:submissionId', 'forms', { permission: { form: ['update'] } }),
  org('GET', '/api/v1/forms/:formId/submissions/:submissionId/files/:fileId/link', 'forms'),
  { method: 'GET', path: '/api/v1/files/:token', service: 'forms', auth: 'public' },
  org('GET', '/api/v1/forms/:formId/submissions/:submissionId/deliveries', 'notifications'),
  org('POST', '/api/v1/forms/:formId/submissions/:submissionId/deliveries/:deliveryId/resend', 'notifications', {
    permission: { form: ['update'] },
  }),
  org('POST', '/api/v1/forms/:formId/deliveries/replay', 'notifications', { permission: { form: ['update'] } }),
  org('GET', '/api/v1/forms/:formId/webhooks', 'notifications'),
  org('POST', '/api/v1/forms/:formId/webhooks', 'notifications', { permission: { form: ['update'] } }),
  org('PATCH', '/api/v1/forms/:formId/webhooks/:webhookId', 'notifications', { permission: { form: ['update'] } }),
  org('DELETE', '/api/v1/forms/:formId/webhooks/:webhookId', 'notifications', { permission: { form: ['update'] } }),
  org('POST', '/api/v1/forms/:formId/webhooks/:webhookId/rotate-secret', 'notifications', {
    permission: { form: ['update'] },
  }),
  org('GET', '/api/v1/billing/usage', 'billing'),
  org('GET', '/api/v1/billing/email-quota', 'billing'),
  org('GET', '/api/v1/orgs/settings', 'orgs'),
  org('PATCH', '/api/v1/orgs/settings', 'orgs', { permission: { organization: ['update'] } }),
  org('GET', '/api/v1/orgs/audit-log', 'orgs', { permission: { organization: ['update'] } }),
  org('GET', '/api/v1/flags/:flag', 'orgs'),
  // Public: the signed token in the mailed link is the credential.
  { method: 'GET', path: '/api/v1/notification-emails/verify', service: 'notifications', auth: 'public' },
  org('GET', '/api/v1/notification-emails', 'notifications'),
  org('POST', '/api/v1/notification-emails', 'notifications', { permission: { organization: ['update'] } }),
  org('DELETE', '/api/v1/notification-emails/:emailId', 'notifications', { permission: { organization: ['update'] } }),
];

const decodeParam = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('MALFORMED_PATH');
  }
};

export interface RouteMatch {
  route: RouteSpec;
  params: Record<string, string>;
}

/** Compiles the table once; `find` answers the route for a method and path, or why there is none. */
export function createRouter(routes: readonly RouteSpec[]) {
  const compiled = routes.map((route) => ({
    route,
    test: match<Record<string, string>>(route.path, { decode: decodeParam }),
  }));
  return {
    find(method: string, path: string): RouteMatch | 'method-not-allowed' | undefined {
      let pathMatched = false;
      for (const { route, test } of compiled) {
        const m = test(path);
        if (!m) continue;
        pathMatched = true;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
          return { route, params: m.params };
      }
      return pathMatched ? 'method-not-allowed' : undefined;
    },
  };
}

/** Public paths the gateway answers without any framework (the ingest fast path). */
export const isPublicIngestPath = (url: string) => url.startsWith('/f/') || url.startsWith('/form/');
