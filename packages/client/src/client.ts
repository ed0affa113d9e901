import { errorFromResponse, FormgateError } from './errors.ts';
import type {
  ApiKey as ApiKeyDto,
  CreateApiKeyRequest,
  CreatedApiKey as CreatedApiKeyDto,
  CreateFormRequest,
  CreateWebhookRequest,
  CurrentApiKey as CurrentApiKeyDto,
  Delivery as DeliveryDto,
  Form as FormDto,
  FormWithCounts as FormWithCountsDto,
  NotificationEmail as NotificationEmailDto,
  Submission as SubmissionDto,
  UpdateFormRequest,
  UpdateWebhookRequest,
  WebhookEndpoint as WebhookEndpointDto,
  WebhookEndpointWithSecret as WebhookEndpointWithSecretDto,
} from './openapi.ts';
import { type SubmissionData, type SubmitOptions, type SubmitResult, submitTo } from './submit.ts';

// The API's types are those of its OpenAPI document (src/openapi.ts: openapi-typescript's output for the document
// built from the route table of @formgate/contracts), under the client's names; the published package imports no
// other Formgate package.
// `FormWithCountsDto`: a form as created, read and listed (its public `endpoint`, `/f/{key}`, and its counters);
// `FormDto`: a form as a change answers it (no counters).
export type {
  ApiKeyDto,
  CreateApiKeyRequest,
  CreatedApiKeyDto,
  CreateFormRequest,
  CreateWebhookRequest,
  CurrentApiKeyDto,
  DeliveryDto,
  FormDto,
  FormWithCountsDto,
  NotificationEmailDto,
  SubmissionDto,
  UpdateFormRequest,
  UpdateWebhookRequest,
  WebhookEndpointDto,
  WebhookEndpointWithSecretDto,
};

/** One page of a keyset-paged list: pass `nextCursor` back as `cursor`; `null` on the last page. */
export interface ListEnvelope<T> {
  data: T[];
  nextCursor: string | null;
}

export interface FormgateClientOptions {
  /** Where the gateway answers, e.g. `https://forms.example.com`. */
  baseUrl: string;
  /** An organization API key (`fg_…`), sent as `X-Api-Key`. Not needed for `submit`. */
  apiKey?: string;
  /** Another `fetch` (a test's, an instrumented one). Default: the global one. */
  fetch?: typeof fetch;
  /** Passed to `fetch`: `'include'` sends a browser session's cookie (the dashboard's own origin only). */
  credentials?: RequestInit['credentials'];
}

/** The list's filters (docs/api.md, "Filters and search"); a cursor works only with the filter it came from. */
export interface SubmissionFilter {
  spam?: boolean;
  held?: boolean;
  /** ISO-8601 date or date-time, inclusive. */
  from?: string;
  /** ISO-8601 date or date-time, exclusive. */
  to?: string;
  /** Words that must all be whole words of a field value. */
  q?: string;
}

export interface SubmissionPageQuery extends SubmissionFilter {
  /** 1–100, default 25. */
  limit?: number;
  cursor?: string;
}

export type ExportFormat = 'csv' | 'json' | 'ndjson';

export interface RequestOptions {
  signal?: AbortSignal;
}

type Query = Record<string, string | number | boolean | undefined>;

const queryString = (query: Query = {}) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
};

const seg = encodeURIComponent;

/**
 * The Formgate REST API (`/api/v1`) and the public endpoint (`submit`). Needs only `fetch`: Node 20+, browsers, Deno.
 * Every failure is a `FormgateError`.
 */
export function createFormgateClient(options: FormgateClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch =
    options.fetch ?? ((input: Parameters<typeof fetch>[0], init?: RequestInit) => globalThis.fetch(input, init));

  async function send(method: string, path: string, body?: unknown, init: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.apiKey) headers['x-api-key'] = options.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await doFetch(`${baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(options.credentials ? { credentials: options.credentials } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (err) {
      if (init.signal?.aborted) throw init.signal.reason;
      throw new FormgateError({ status: 0, code: 'NETWORK_ERROR', message: String(err), cause: err });
    }
    if (!res.ok) throw await errorFromResponse(res);
    return res;
  }

  async function json<T>(method: string, path: string, body?: unknown, init?: RequestOptions): Promise<T> {
    const res = await send(method, path, body, init);
    if (res.status === 204) return undefined as T;
    try {
      return (await res.json()) as T;
    } catch (err) {
      throw new FormgateError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'Not JSON', cause: err });
    }
  }

  const formPath = (formId: string) => `/api/v1/forms/${seg(formId)}`;

  const submissions = {
    /** One page, newest first: `{data, nextCursor}` (`nextCursor` null on the last page). */
    page: (formId: string, query: SubmissionPageQuery = {}, init?: RequestOptions) =>
      json<ListEnvelope<SubmissionDto>>(
        'GET',
        `${formPath(formId)}/submissions${queryString({ ...query })}`,
        undefined,
        init,
      ),
    /** Every matching submission, page after page (`limit` per request), as an async iterator. */
    async *list(
      formId: string,
      query: Omit<SubmissionPageQuery, 'cursor'> = {},
      init?: RequestOptions,
    ): AsyncGenerator<SubmissionDto, void, undefined> {
      let cursor: string | undefined;
      do {
        const page = await submissions.page(formId, { ...query, ...(cursor ? { cursor } : {}) }, init);
        yield* page.data;
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    },
    get: (formId: string, submissionId: string, init?: RequestOptions) =>
      json<SubmissionDto>('GET', `${formPath(formId)}/submissions/${seg(submissionId)}`, undefined, init),
    /** Marks it spam (`{spam: true}`) or not spam; answers the submission as changed. */
    update: (formId: string, submissionId: string, body: { spam: boolean }, init?: RequestOptions) =>
      json<SubmissionDto>('PATCH', `${formPath(formId)}/submissions/${seg(submissionId)}`, body, init),
    delete: (formId: string, submissionId: string, init?: RequestOptions) =>
      json<void>('DELETE', `${formPath(formId)}/submissions/${seg(submissionId)}`, undefined, init),
    /** Its delivery log: one entry per email and webhook planned for it, with its status and last response. */
    deliveries: async (formId: string, submissionId: string, init?: RequestOptions) =>
      (
        await json<{ data: DeliveryDto[] }>(
          'GET',
          `${formPath(formId)}/submissions/${seg(submissionId)}/deliveries`,
          undefined,
          init,
        )
      ).data,
    /**
     * The export as the server streams it (`csv` by default: UTF-8 with a byte order mark). Errors before the first
     * byte throw; a failure later ends the stream with an error, never as if complete.
     */
    async exportStream(
      formId: string,
      query: SubmissionFilter & { format?: ExportFormat } = {},
      init?: RequestOptions,
    ): Promise<ReadableStream<Uint8Array>> {
      const res = await send(
        'GET',
        `${formPath(formId)}/submissions/export${queryString({ ...query })}`,
        undefined,
        init,
      );
      if (!res.body) throw new FormgateError({ status: res.status, code: 'UNEXPECTED_RESPONSE', message: 'No body' });
      return res.body;
    },
    /** The whole export as text (decoded as UTF-8, so without the CSV's byte order mark; the stream keeps it). */
    async exportText(formId: string, query: SubmissionFilter & { format?: ExportFormat } = {}, init?: RequestOptions) {
      const stream = await submissions.exportStream(formId, query, init);
      return new Response(stream).text();
    },
  };

  return {
    baseUrl,
    forms: {
      /** Every form of the organization (`slug` narrows it to that one). */
      list: async (query: { slug?: string } = {}, init?: RequestOptions) =>
        (await json<{ data: FormWithCountsDto[] }>('GET', `/api/v1/forms${queryString(query)}`, undefined, init)).data,
      get: (formId: string, init?: RequestOptions) => json<FormWithCountsDto>('GET', formPath(formId), undefined, init),
      create: (body: CreateFormRequest, init?: RequestOptions) =>
        json<FormWithCountsDto>('POST', '/api/v1/forms', body, init),
      update: (formId: string, body: UpdateFormRequest, init?: RequestOptions) =>
        json<FormDto>('PATCH', formPath(formId), body, init),
      delete: (formId: string, init?: RequestOptions) => json<void>('DELETE', formPath(formId), undefined, init),
    },
    submissions,
    /**
     * The organization's API keys. The gateway serves these to browser sessions only (an API key cannot mint or
     * revoke keys): from a key they answer 403 `FORBIDDEN`; from the dashboard's origin use `credentials: 'include'`.
     * `current` is the exception: it answers the calling key itself.
     */
    apiKeys: {
      /** The key this client holds (`apiKey`): its id, organization and scope. Any key may ask. */
      current: (init?: RequestOptions) => json<CurrentApiKeyDto>('GET', '/api/v1/api-keys/current', undefined, init),
      list: async (init?: RequestOptions) =>
        (await json<{ data: ApiKeyDto[] }>('GET', '/api/v1/api-keys', undefined, init)).data,
      create: (body: CreateApiKeyRequest, init?: RequestOptions) =>
        json<CreatedApiKeyDto>('POST', '/api/v1/api-keys', body, init),
      delete: (keyId: string, init?: RequestOptions) =>
        json<void>('DELETE', `/api/v1/api-keys/${seg(keyId)}`, undefined, init),
    },
    /** The organization's notification addresses; only `verified` ones are mailed (double opt-in). */
    notificationEmails: {
      list: async (init?: RequestOptions) =>
        (await json<{ data: NotificationEmailDto[] }>('GET', '/api/v1/notification-emails', undefined, init)).data,
    },
    webhooks: {
      list: async (formId: string, init?: RequestOptions) =>
        (await json<{ data: WebhookEndpointDto[] }>('GET', `${formPath(formId)}/webhooks`, undefined, init)).data,
      /** The answer carries the signing `secret` (`whsec_…`): the only time it is shown. */
      create: (formId: string, body: CreateWebhookRequest, init?: RequestOptions) =>
        json<WebhookEndpointWithSecretDto>('POST', `${formPath(formId)}/webhooks`, body, init),
      update: (formId: string, webhookId: string, body: UpdateWebhookRequest, init?: RequestOptions) =>
        json<WebhookEndpointDto>('PATCH', `${formPath(formId)}/webhooks/${seg(webhookId)}`, body, init),
      delete: (formId: string, webhookId: string, init?: RequestOptions) =>
        json<void>('DELETE', `${formPath(formId)}/webhooks/${seg(webhookId)}`, undefined, init),
      /** A new secret; the previous one keeps signing alongside it for 24 hours. */
      rotateSecret: (formId: string, webhookId: string, init?: RequestOptions) =>
        json<WebhookEndpointWithSecretDto>(
          'POST',
          `${formPath(formId)}/webhooks/${seg(webhookId)}/rotate-secret`,
          {},
          init,
        ),
    },
    /** `POST /f/{formKey}`: public, needs no API key (none is sent). See `SubmitOptions` for retries. */
    submit: (formKey: string, data: SubmissionData, submitOptions?: SubmitOptions): Promise<SubmitResult> =>
      submitTo({ baseUrl, fetch: doFetch }, formKey, data, submitOptions),
  };
}

export type FormgateClient = ReturnType<typeof createFormgateClient>;
