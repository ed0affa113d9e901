import { z } from 'zod';
import { FormDtoSchema, FormStatsDtoSchema, FormWithCountsDtoSchema, SubmissionDtoSchema } from '../api.ts';
import { ApiKeyDtoSchema, CreatedApiKeyDtoSchema, CurrentApiKeyDtoSchema } from '../api-keys.ts';
import { SessionDtoSchema } from '../auth.ts';
import { BillingUsageDtoSchema } from '../billing.ts';
import { ERROR_CODES, type ErrorCode } from '../errors.ts';
import { IngestErrorBodySchema } from '../ingest.ts';
import { DeliveryDtoSchema, NotificationEmailDtoSchema } from '../notifications.ts';
import { AuditEntryDtoSchema, OrgSettingsDtoSchema } from '../orgs.ts';
import { PlansResponseDtoSchema } from '../plans.ts';
import { RestHookBodySchema, RestHookDtoSchema, RestHookSampleDtoSchema } from '../rest-hooks.ts';
import { API_ROUTE_LIST, API_ROUTES, type ApiRoute, PUBLIC_ROUTE_LIST, type ResponseSpec } from '../routes/index.ts';
import { SiteConfigSchema } from '../site.ts';
import { SpamReasonSchema } from '../spam.ts';
import { WebhookEndpointDtoSchema, WebhookEndpointWithSecretDtoSchema } from '../webhooks.ts';

export interface OpenApiOptions {
  /** The gateway's public URL (`PUBLIC_URL`); absent, `/`: the document's own origin. */
  serverUrl?: string;
  /** `info.version`. */
  version?: string;
}

type JsonSchema = Record<string, unknown>;

/** zod 4's own JSON Schema (2020-12, OpenAPI 3.1's dialect): `input` for what a client sends, `output` for answers. */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', names?: z.core.$ZodRegistry<{ id: string }>) {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    // Transforms and refinements have no JSON Schema: their input (or `{}` for an output) stands for them.
    unrepresentable: 'any',
    override: declareRefinements,
    ...(names ? { metadata: names } : {}),
  }) as JsonSchema;
  return rest;
}

/**
 * A refinement zod cannot describe (it is a function) may declare itself in JSON Schema keywords, as
 * `refine(check, { params: { jsonSchema: { uniqueItems: true } } })`: they are added to the schema it refines, so the
 * document states the constraint the server enforces.
 */
function declareRefinements(ctx: { zodSchema: z.core.$ZodTypes; jsonSchema: JsonSchema }) {
  for (const check of ctx.zodSchema._zod.def.checks ?? []) {
    const params = (check._zod.def as { params?: { jsonSchema?: JsonSchema } }).params;
    if (params?.jsonSchema) Object.assign(ctx.jsonSchema, params.jsonSchema);
  }
}

const named = (entries: [z.ZodType, string][]) => {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of entries) registry.add(schema, { id });
  return registry;
};

/** Answers named in `components.schemas` (what generated clients call their types). */
const OUTPUT_NAMES = named([
  [SubmissionDtoSchema, 'Submission'],
  [FormDtoSchema, 'Form'],
  [FormWithCountsDtoSchema, 'FormWithCounts'],
  [FormStatsDtoSchema, 'FormStats'],
  [ApiKeyDtoSchema, 'ApiKey'],
  [CreatedApiKeyDtoSchema, 'CreatedApiKey'],
  [CurrentApiKeyDtoSchema, 'CurrentApiKey'],
  [WebhookEndpointDtoSchema, 'WebhookEndpoint'],
  [WebhookEndpointWithSecretDtoSchema, 'WebhookEndpointWithSecret'],
  [RestHookDtoSchema, 'RestHook'],
  [RestHookSampleDtoSchema, 'RestHookSample'],
  [RestHookBodySchema, 'RestHookBody'],
  [DeliveryDtoSchema, 'Delivery'],
  [NotificationEmailDtoSchema, 'NotificationEmail'],
  [BillingUsageDtoSchema, 'BillingUsage'],
  [SessionDtoSchema, 'Session'],
  [SiteConfigSchema, 'SiteConfig'],
  [PlansResponseDtoSchema, 'Plans'],
  [OrgSettingsDtoSchema, 'OrgSettings'],
  [AuditEntryDtoSchema, 'AuditEntry'],
  [SpamReasonSchema, 'SpamReason'],
]);
/** Request bodies named in `components.schemas`: the routes' own schemas, strict as they parse them (ADR 96). */
const INPUT_NAMES = named([
  [API_ROUTES.createForm.request.body, 'CreateFormRequest'],
  [API_ROUTES.updateForm.request.body, 'UpdateFormRequest'],
  [API_ROUTES.createApiKey.request.body, 'CreateApiKeyRequest'],
  [API_ROUTES.createWebhook.request.body, 'CreateWebhookRequest'],
  [API_ROUTES.updateWebhook.request.body, 'UpdateWebhookRequest'],
  [API_ROUTES.subscribeRestHook.request.body, 'SubscribeRestHookRequest'],
  [API_ROUTES.bulkChangeSubmissions.request.body, 'BulkSubmissionsRequest'],
  [API_ROUTES.replayDeliveries.request.body, 'ReplayDeliveriesRequest'],
]);

type Convert = (schema: z.ZodType, io: 'input' | 'output') => JsonSchema;

/** A converter that moves named schemas into `components` (its `$defs` become `#/components/schemas/…`). */
function componentConverter(components: Record<string, JsonSchema>): Convert {
  return (schema, io) => {
    const { $defs, ...rest } = toJsonSchema(schema, io, io === 'input' ? INPUT_NAMES : OUTPUT_NAMES) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const relink = <T>(value: T): T =>
      JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as T;
    for (const [id, def] of Object.entries($defs ?? {})) {
      const linked = relink(def);
      const known = components[id];
      if (known && JSON.stringify(known) !== JSON.stringify(linked))
        throw new Error(`Two different schemas named ${id}`);
      components[id] = linked;
    }
    return relink(rest);
  };
}

/** `/api/v1/forms/:formId` → `/api/v1/forms/{formId}`. */
export const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1] as string);

/** The error codes every route of its kind can answer, from its access rules and request schemas. */
function implicitErrors(route: ApiRoute): ErrorCode[] {
  const { method } = route;
  const codes: ErrorCode[] = ['METHOD_NOT_ALLOWED'];
  if (pathParams(route.path).length > 0) codes.push('MALFORMED_PATH');
  const mutation = method !== 'GET';
  if (route.auth !== 'public') {
    codes.push('UNAUTHENTICATED', 'FORBIDDEN', 'AUTH_UNAVAILABLE');
    if (route.auth === 'org') codes.push('NO_ACTIVE_ORGANIZATION', 'SSO_REQUIRED', 'TWO_FACTOR_REQUIRED');
    if (mutation) codes.push('CSRF_REJECTED');
    if (mutation && method !== 'DELETE') codes.push('UNSUPPORTED_MEDIA_TYPE');
  }
  if (route.request?.body) codes.push('VALIDATION_FAILED', 'MALFORMED_JSON', 'PAYLOAD_TOO_LARGE');
  if (route.request?.query) codes.push('VALIDATION_FAILED');
  if (route.service !== 'gateway') codes.push('MALFORMED_REQUEST', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT');
  // Embedded Formgate answers every path so while its services start (start-embedded.ts), the gateway's own too.
  else codes.push('UPSTREAM_UNAVAILABLE');
  codes.push('STORE_UNAVAILABLE');
  return codes;
}

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer' } },
};
const LOCATION = { Location: { description: 'Where to go next', schema: { type: 'string' } } };

/** Error answers grouped by status, each narrowed to the codes this operation can answer with that status. */
function errorResponses(codes: readonly ErrorCode[], body: (codes: ErrorCode[]) => Record<string, unknown>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retryable = list.some((c) => (ERROR_CODES[c] as { retryable?: boolean }).retryable);
    out[String(status)] = {
      description: list.map((c) => `\`${c}\`: ${ERROR_CODES[c].message}`).join('; '),
      ...(retryable ? { headers: RETRY_AFTER } : {}),
      content: body(list),
    };
  }
  return out;
}

const apiErrorBody = (codes: ErrorCode[]) => ({
  'application/json': {
    schema: {
      type: 'object',
      required: ['error'],
      properties: {
        error: {
          type: 'object',
          required: ['code', 'message', 'requestId'],
          properties: {
            code: { type: 'string', enum: codes },
            message: { type: 'string' },
            requestId: { type: 'string' },
            details: { description: 'Validation issues `[{path, message}]`, or the documented details of a code' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  },
});

const ingestErrorBody = (codes: ErrorCode[]) => {
  const schema = toJsonSchema(IngestErrorBodySchema, 'output') as { properties: { errors: { items: JsonSchema } } };
  const item = schema.properties.errors.items as { properties: Record<string, JsonSchema> };
  item.properties.code = { type: 'string', enum: codes };
  return {
    'application/json': { schema },
    'text/html': { schema: { type: 'string' } },
  };
};

function successResponses(success: readonly ResponseSpec[], convert: Convert) {
  const out: Record<string, unknown> = {};
  for (const s of success) {
    const content = s.schema
      ? { 'application/json': { schema: convert(s.schema, 'output') } }
      : s.content
        ? Object.fromEntries(Object.entries(s.content).map(([type, schema]) => [type, { schema }]))
        : undefined;
    out[String(s.status)] = {
      description: s.description,
      ...(s.redirect ? { headers: LOCATION } : {}),
      ...(content ? { content } : {}),
    };
  }
  return out;
}

function parameters(route: ApiRoute) {
  const { params: paramsSchema, query } = route.request ?? {};
  const typed = paramsSchema
    ? ((toJsonSchema(paramsSchema, 'input') as { properties?: Record<string, JsonSchema> }).properties ?? {})
    : {};
  const params: Record<string, unknown>[] = pathParams(route.path).map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: typed[name] ?? { type: 'string' },
  }));
  if (query) {
    const schema = toJsonSchema(query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      params.push({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: property });
    }
  }
  return params;
}

/** A JSON body; optional when `{}` is a valid one (the server reads a missing body as `{}`). */
const requestBody = (route: ApiRoute, convert: Convert) =>
  route.request?.body
    ? {
        requestBody: {
          required: !route.request.body.safeParse({}).success,
          content: { 'application/json': { schema: convert(route.request.body, 'input') } },
        },
      }
    : {};

/** Who may call a route: from its access rules, never restated. */
function security(route: ApiRoute) {
  if (route.auth === 'public') return [];
  if (route.auth === 'user' || !route.apiKey) return [{ session: [] }];
  return [{ session: [] }, { apiKey: [] }, { bearerApiKey: [] }];
}

function accessNote(route: ApiRoute): string {
  if (route.auth === 'public') return 'Public.';
  if (route.auth === 'user') return 'A signed-in user (session); API keys are refused.';
  const who = route.apiKey ? `a member's session or an API key with \`${route.apiKey}\` scope` : "a member's session";
  const needs = route.permission
    ? ` Needs ${Object.entries(route.permission)
        .map(([r, actions]) => `\`${r}: ${actions.join(', ')}\``)
        .join(' and ')}.`
    : '';
  return `Caller: ${who}.${needs}`;
}

/** The ingest body: one field per key (at least one: `EMPTY`); files in multipart. */
const INGEST_FIELDS = { type: 'object', minProperties: 1, additionalProperties: { type: 'string' } };
const INGEST_BODY = {
  required: true,
  content: {
    'application/x-www-form-urlencoded': { schema: INGEST_FIELDS },
    'multipart/form-data': {
      schema: {
        type: 'object',
        minProperties: 1,
        additionalProperties: { type: 'string', description: "A field's value, or a file part's bytes" },
      },
    },
    'application/json': {
      schema: {
        type: 'object',
        minProperties: 1,
        description: 'One field per top-level key; nested values kept as compact JSON text',
      },
    },
  },
};

/** Errors of the public endpoint all carry CORS headers; the retryable ones `Retry-After`. */
/**
 * The distributed gateway's own answers on the public endpoint when no ingest instance can answer (docs/ingest.md,
 * ADR 16): the API's error envelope without a request id, `UPSTREAM_UNAVAILABLE` (503, beside ingest's own
 * `UNAVAILABLE`) and `UPSTREAM_TIMEOUT` (504).
 */
function withGatewayAnswers(responses: Record<string, unknown>): Record<string, unknown> {
  const gateway = errorResponses(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_TIMEOUT'], (codes) => {
    const body = apiErrorBody(codes)['application/json'].schema;
    body.properties.error.required = ['code', 'message'];
    return { 'application/json': { schema: body } };
  }) as Record<string, { description: string; content: Record<string, { schema: unknown }> }>;
  const out = { ...responses };
  for (const [status, answer] of Object.entries(gateway)) {
    const own = out[status] as typeof answer | undefined;
    const json = own?.content['application/json'];
    out[status] =
      own && json
        ? {
            ...own,
            description: `${own.description}; from the gateway, ${answer.description}`,
            content: {
              ...own.content,
              'application/json': { schema: { oneOf: [json.schema, answer.content['application/json']?.schema] } },
            },
          }
        : answer;
  }
  return out;
}

function publicOperation(op: ApiRoute, convert: Convert) {
  // A submission and an upload grant take an `Idempotency-Key`; only the submission takes ingest's three encodings.
  const isPost = op.method === 'POST';
  const isSubmit = isPost && op.path === '/f/:formKey';
  const params = parameters(op);
  if (isPost) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'The submission id becomes a function of (form, key): a retry returns the original id',
      schema: { type: 'string', minLength: 1, maxLength: 200 },
    });
  }
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    security: [],
    parameters: params,
    ...(isSubmit ? { requestBody: INGEST_BODY } : requestBody(op, convert)),
    responses: withGatewayAnswers({
      ...successResponses(op.responses, convert),
      ...errorResponses(op.errors ?? [], ingestErrorBody),
    }),
  };
}

/**
 * The OpenAPI 3.1 description of the API: every route of the route table (`API_ROUTES`: access rules, services,
 * request and answer schemas), plus the public endpoint (`PUBLIC_ROUTES`).
 */
export function buildOpenApiDocument(options: OpenApiOptions = {}) {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, JsonSchema> = {};
  const convert = componentConverter(schemas);
  for (const route of API_ROUTE_LIST) {
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: [route.description, accessNote(route)].filter(Boolean).join('\n\n'),
      security: security(route),
      'x-formgate-service': route.service,
      parameters: parameters(route),
      ...requestBody(route, convert),
      responses: {
        ...successResponses(route.responses, convert),
        ...errorResponses([...implicitErrors(route), ...(route.errors ?? [])], apiErrorBody),
      },
    };
  }
  for (const route of PUBLIC_ROUTE_LIST) {
    const path = toOpenApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = publicOperation(route, convert);
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Formgate API',
      version: options.version ?? '1.0.0',
      description:
        'The REST API of Formgate (`/api/v1`) and its public form endpoint (`/f/{formKey}`). Errors of the API are ' +
        '`{ "error": { "code", "message", "requestId", "details"? } }`; the public endpoint answers in Formspree\'s ' +
        'format. Accounts, sessions and organizations (`/api/auth/*`, better-auth) and the operator API ' +
        '(`/api/ops/*`) are not described here: see docs/api.md.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: options.serverUrl ?? '/' }],
    tags: [...new Set([...API_ROUTE_LIST, ...PUBLIC_ROUTE_LIST].map((route) => route.tag))].map((name) => ({
      name,
    })),
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: 'formgate.session_token',
          description: 'A browser session from `/api/auth/sign-in/email`; mutations must come from the product origin',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: "An organization's API key (`fg_…`)" },
        bearerApiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'The same API key as `Authorization: Bearer fg_…`',
        },
      },
    },
    paths,
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
