import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Api from '@formgate/contracts';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { generateOpenApiTypes } from '../scripts/openapi-types.ts';
import type * as Client from '../src/index.ts';

/** What a zod schema accepts (`z.input`, without importing zod here). */
type In<S extends { _zod: { input: unknown } }> = S['_zod']['input'];

describe("the client's API types", () => {
  it('are openapi-typescript’s output for the current OpenAPI document (regenerate: pnpm --filter @formgate/client generate)', async () => {
    const committed = readFileSync(join(import.meta.dirname, '../src/openapi.ts'), 'utf8');
    expect(committed === (await generateOpenApiTypes()), 'packages/client/src/openapi.ts is stale').toBe(true);
  });

  // Checked by `pnpm typecheck`: what the server answers (its zod output types) is what the client's types accept,
  // and what the client sends is what the server's request schemas accept.
  it('accept every answer the server can give and send only what the server accepts', () => {
    expectTypeOf<Api.SubmissionDto>().toExtend<Client.SubmissionDto>();
    expectTypeOf<Api.FormWithCountsDto>().toExtend<Client.FormWithCountsDto>();
    expectTypeOf<Api.FormDto>().toExtend<Client.FormDto>();
    expectTypeOf<Api.ApiKeyDto>().toExtend<Client.ApiKeyDto>();
    expectTypeOf<Api.CreatedApiKeyDto>().toExtend<Client.CreatedApiKeyDto>();
    expectTypeOf<Api.WebhookEndpointDto>().toExtend<Client.WebhookEndpointDto>();
    expectTypeOf<Api.WebhookEndpointWithSecretDto>().toExtend<Client.WebhookEndpointWithSecretDto>();
    expectTypeOf<Api.DeliveryDto>().toExtend<Client.DeliveryDto>();
    expectTypeOf<Api.NotificationEmailDto>().toExtend<Client.NotificationEmailDto>();
    expectTypeOf<Client.CreateFormRequest>().toExtend<In<typeof Api.CreateFormRequestSchema>>();
    expectTypeOf<Client.UpdateFormRequest>().toExtend<In<typeof Api.UpdateFormRequestSchema>>();
    expectTypeOf<Client.CreateApiKeyRequest>().toExtend<In<typeof Api.CreateApiKeyRequestSchema>>();
    expectTypeOf<Client.CreateWebhookRequest>().toExtend<In<typeof Api.CreateWebhookRequestSchema>>();
    expectTypeOf<Client.UpdateWebhookRequest>().toExtend<In<typeof Api.UpdateWebhookRequestSchema>>();
  });
});
