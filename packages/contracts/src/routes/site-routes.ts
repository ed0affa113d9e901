import { z } from 'zod';
import { listOf } from '../api.ts';
import {
  ApiKeyDtoSchema,
  CreateApiKeyRequestSchema,
  CreatedApiKeyDtoSchema,
  CurrentApiKeyDtoSchema,
} from '../api-keys.ts';
import { SessionDtoSchema, UserLookupDtoSchema } from '../auth.ts';
import { emailAddress } from '../email-address.ts';
import { PlansResponseDtoSchema } from '../plans.ts';
import { SiteConfigSchema } from '../site.ts';
import { defineRoute, json, noContent } from './define-route.ts';

/** Accounts, API keys and the site: the gateway answers these itself (the plans: billing). */
export const siteRoutes = {
  getSession: defineRoute({
    method: 'GET',
    path: '/api/v1/session',
    service: 'gateway',
    auth: 'user',
    tag: 'Accounts',
    summary: 'The signed-in user, their active organization and roles',
    responses: [json(200, 'The session', SessionDtoSchema)],
  }),
  lookupUserByEmail: defineRoute({
    method: 'GET',
    path: '/api/v1/users/by-email/:email',
    service: 'gateway',
    auth: 'public',
    tag: 'Accounts',
    summary: 'Whether an account has this email (sign-in page); limited per client IP',
    request: { params: z.object({ email: emailAddress() }) },
    responses: [json(200, 'The lookup', UserLookupDtoSchema)],
    errors: ['INVALID_EMAIL', 'RATE_LIMITED', 'AUTH_UNAVAILABLE'],
  }),
  getSite: defineRoute({
    method: 'GET',
    path: '/api/v1/site',
    service: 'gateway',
    auth: 'public',
    tag: 'Site',
    summary: "The instance's public configuration (plans, its own forms)",
    responses: [json(200, 'The configuration', SiteConfigSchema)],
  }),
  getOpenApiDocument: defineRoute({
    method: 'GET',
    path: '/api/v1/openapi.json',
    service: 'gateway',
    auth: 'public',
    tag: 'Site',
    summary: 'This description (OpenAPI 3.1)',
    responses: [
      { status: 200, description: 'The OpenAPI document', content: { 'application/json': { type: 'object' } } },
    ],
  }),
  listPlans: defineRoute({
    method: 'GET',
    path: '/api/v1/plans',
    service: 'billing',
    auth: 'public',
    tag: 'Billing',
    summary: 'The plans in force (pricing page)',
    responses: [json(200, 'The plans', PlansResponseDtoSchema)],
  }),
  getCurrentApiKey: defineRoute({
    method: 'GET',
    path: '/api/v1/api-keys/current',
    service: 'gateway',
    auth: 'org',
    apiKey: 'read',
    tag: 'API keys',
    summary: 'The API key this request is made with: its id, organization and scope',
    description:
      'For tools that hold a key and offer only what it may do (`formgate mcp`). Any key may ask; a browser ' +
      'session is answered 404.',
    responses: [json(200, 'The key', CurrentApiKeyDtoSchema)],
    errors: ['NOT_FOUND'],
  }),
  listApiKeys: defineRoute({
    method: 'GET',
    path: '/api/v1/api-keys',
    service: 'gateway',
    auth: 'org',
    permission: { apiKey: ['read'] },
    tag: 'API keys',
    summary: "The organization's API keys (never the keys themselves)",
    responses: [json(200, 'The keys, newest first', listOf(ApiKeyDtoSchema))],
    errors: ['AUTH_UNAVAILABLE'],
  }),
  createApiKey: defineRoute({
    method: 'POST',
    path: '/api/v1/api-keys',
    service: 'gateway',
    auth: 'org',
    permission: { apiKey: ['create'] },
    tag: 'API keys',
    summary: 'Create an API key; the answer is the only time the whole key is shown',
    request: { body: CreateApiKeyRequestSchema },
    responses: [json(201, 'The key, with `key`', CreatedApiKeyDtoSchema)],
    errors: ['AUTH_UNAVAILABLE'],
  }),
  deleteApiKey: defineRoute({
    method: 'DELETE',
    path: '/api/v1/api-keys/:keyId',
    service: 'gateway',
    auth: 'org',
    permission: { apiKey: ['delete'] },
    tag: 'API keys',
    summary: 'Revoke an API key (within 30 s on other gateways)',
    responses: [noContent('Revoked')],
    errors: ['API_KEY_NOT_FOUND', 'AUTH_UNAVAILABLE'],
  }),
};
