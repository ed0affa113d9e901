import { z } from 'zod';
import { trimmedText } from './text.ts';

/** What an organization API key may do: `read` acts as a member (no mutations), `write` as an admin. */
export const API_KEY_SCOPE_VALUES = ['read', 'write'] as const;
export type ApiKeyScopeName = (typeof API_KEY_SCOPE_VALUES)[number];

/** `POST /api/v1/api-keys`: the gateway's schema and the dashboard's form. */
export const CreateApiKeyRequestSchema = z.strictObject({
  name: trimmedText(32, { empty: 'Enter a name', tooLong: 'Use at most 32 characters' }),
  scope: z.enum(API_KEY_SCOPE_VALUES),
});
export type CreateApiKeyRequest = z.infer<typeof CreateApiKeyRequestSchema>;

/** An API key as `/api/v1/api-keys` lists it: never the key itself, only its first characters (`start`). */
export const ApiKeyDtoSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  start: z.string().nullable(),
  scope: z.enum(API_KEY_SCOPE_VALUES),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  createdBy: z.string().nullable(),
});
export type ApiKeyDto = z.infer<typeof ApiKeyDtoSchema>;

/** `GET /api/v1/api-keys/current`: the key a request is made with, for tools that adapt to what it may do. */
export const CurrentApiKeyDtoSchema = z.object({
  id: z.string(),
  organizationId: z.string(),
  scope: z.enum(API_KEY_SCOPE_VALUES),
});
export type CurrentApiKeyDto = z.infer<typeof CurrentApiKeyDtoSchema>;

/** The answer to a creation: the only time the whole key is shown. */
export const CreatedApiKeyDtoSchema = ApiKeyDtoSchema.extend({ key: z.string() });
export type CreatedApiKeyDto = z.infer<typeof CreatedApiKeyDtoSchema>;
