import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/errors.ts';
import { buildOpenApiDocument, toOpenApiPath } from '../src/openapi/document.ts';
import { API_ROUTE_LIST, PUBLIC_ROUTE_LIST } from '../src/routes/index.ts';

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
const doc = buildOpenApiDocument({ serverUrl: 'https://forms.example' });
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> };
const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  METHODS.filter((m) => m in item).map((m) => ({ key: `${m.toUpperCase()} ${path}`, op: item[m] as Operation })),
);

describe('the OpenAPI description', () => {
  it('gives every route of the table an operation of its own (no two share a method and path)', () => {
    const routes = [...API_ROUTE_LIST, ...PUBLIC_ROUTE_LIST].map((r) => `${r.method} ${toOpenApiPath(r.path)}`);
    expect(operations.map((o) => o.key).sort()).toEqual(routes.sort());
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

  it("derives access from the routes' rules: public routes need nothing, API-key routes name the key schemes", () => {
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
