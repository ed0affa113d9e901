import { ERROR_CODES } from '@formgate/contracts';
import { API_OPERATIONS, buildOpenApiDocument, PUBLIC_OPERATIONS, toOpenApiPath } from '@formgate/contracts/openapi';
import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../src/routes.ts';

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
const doc = buildOpenApiDocument(ROUTES, { serverUrl: 'https://forms.example' });
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> };
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => m in item).map((m) => ({ key: `${m.toUpperCase()} ${path}`, op: item[m] as Operation })),
);

describe('the OpenAPI description', () => {
  it('describes every route of the route table, and nothing else but the public endpoint', () => {
    const fromRoutes = ROUTES.map((r) => `${r.method} ${toOpenApiPath(r.path)}`);
    const fromPublic = PUBLIC_OPERATIONS.map((o) => `${o.method} ${toOpenApiPath(o.path)}`);
    expect(operations.map((o) => o.key).sort()).toEqual([...fromRoutes, ...fromPublic].sort());
    // No description left behind for a route that is gone.
    expect(Object.keys(API_OPERATIONS).sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('refuses to describe a route it has no operation for', () => {
    expect(() =>
      buildOpenApiDocument([...ROUTES, { method: 'GET', path: '/api/v1/nope', service: 'forms', auth: 'org' }]),
    ).toThrow('GET /api/v1/nope');
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? [] : result.errors).toEqual([]);
    expect(doc.openapi).toMatch(/^3\.1\./);
  });

  it('gives every operation a unique id, a success answer and only registered error codes', () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { key, op } of operations) {
      const statuses = Object.keys(op.responses).map(Number);
      expect(
        statuses.some((s) => s < 400),
        key,
      ).toBe(true);
      for (const [status, response] of Object.entries(op.responses)) {
        const json = response.content?.['application/json'] as { schema?: { properties?: Record<string, unknown> } };
        const codes = JSON.stringify(json?.schema ?? {}).match(/"enum":\[[^\]]*\]/g) ?? [];
        if (Number(status) < 400) continue;
        expect(codes.length, `${key} ${status}`).toBeGreaterThan(0);
        for (const code of JSON.parse(`{${codes[0]}}`).enum as string[]) {
          expect(ERROR_CODES[code as keyof typeof ERROR_CODES]?.status, `${key} ${code}`).toBe(Number(status));
        }
      }
    }
  });

  it('derives access from the route table: public routes need nothing, API-key routes name the key schemes', () => {
    const item = (path: string) => doc.paths[path] as Record<string, { security: unknown[] }>;
    expect(item('/api/v1/site').get?.security).toEqual([]);
    expect(item('/api/v1/forms').post?.security).toEqual([{ session: [] }, { apiKey: [] }, { bearerApiKey: [] }]);
    expect(item('/api/v1/api-keys').post?.security).toEqual([{ session: [] }]);
    expect(doc.servers).toEqual([{ url: 'https://forms.example' }]);
  });

  it('names the answers and request bodies a generated client needs as components', () => {
    const getForm = (doc.paths['/api/v1/forms/{formId}'] as Record<string, Operation>).get;
    expect(JSON.stringify(getForm?.responses['200'])).toContain('"$ref":"#/components/schemas/FormWithCounts"');
    for (const name of ['Submission', 'Form', 'WebhookEndpoint', 'ApiKey', 'CreateFormRequest', 'Delivery']) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    // Closed objects: an answer with a field its schema lacks does not validate.
    expect(doc.components.schemas.Submission).toMatchObject({ additionalProperties: false });
  });
});
