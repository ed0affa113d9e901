import http from 'node:http';
import https from 'node:https';
import { guardedAgent, isTargetRefusal } from './target-guard.ts';

/** At most this many bytes of a response are read and kept (`text`); the rest is never downloaded. */
export const MAX_RESPONSE_TEXT_BYTES = 1024;

/**
 * Why an attempt failed. Permanent (`retryable: false`): `WEBHOOK_INVALID_URL`, `WEBHOOK_TARGET_FORBIDDEN` (the SSRF
 * guard refused the address), `WEBHOOK_GONE` (410: the endpoint should be disabled). Retryable: `WEBHOOK_REDIRECT`
 * (any 3xx; never followed), `WEBHOOK_HTTP_ERROR` (other non-2xx), `WEBHOOK_TIMEOUT`, `WEBHOOK_CONNECTION_FAILED`
 * (DNS, refused, reset, TLS), `WEBHOOK_ABORTED` (the caller's signal, e.g. shutdown).
 */
export type WebhookFailureCode =
  | 'WEBHOOK_INVALID_URL'
  | 'WEBHOOK_TARGET_FORBIDDEN'
  | 'WEBHOOK_GONE'
  | 'WEBHOOK_REDIRECT'
  | 'WEBHOOK_HTTP_ERROR'
  | 'WEBHOOK_TIMEOUT'
  | 'WEBHOOK_CONNECTION_FAILED'
  | 'WEBHOOK_ABORTED';

/**
 * One attempt's result. `text` is at most `MAX_RESPONSE_TEXT_BYTES` of the response body (or a short reason when
 * there was no response): untrusted text for the delivery log, never to be logged.
 */
export type WebhookOutcome =
  | { ok: true; status: number; text: string }
  | { ok: false; retryable: boolean; code: WebhookFailureCode; status?: number; text: string };

export interface SendWebhookInput {
  /** `http:` or `https:` only. Credentials in the URL are sent as basic auth. */
  url: string;
  /** The exact bytes to POST (as `application/json`), the ones that were signed. */
  body: string;
  /** Extra headers, e.g. the signature headers; `content-type`, `content-length` and `user-agent` are set here. */
  headers?: Record<string, string>;
  /** The whole attempt's deadline: DNS, connect, TLS, request and the response's status and first KB. */
  timeoutMs: number;
  /** `WEBHOOKS_ALLOW_PRIVATE_TARGETS`: allow loopback, private and link-local addresses (tests, self-hosting). */
  allowPrivateTargets: boolean;
  /** Ends the attempt early (`WEBHOOK_ABORTED`), e.g. on shutdown. */
  signal?: AbortSignal;
}

export const WEBHOOK_USER_AGENT = 'Formgate-Webhooks/1';

const failure = (code: WebhookFailureCode, retryable: boolean, text: string, status?: number): WebhookOutcome =>
  status === undefined ? { ok: false, retryable, code, text } : { ok: false, retryable, code, status, text };

/** What a response's status means: 2xx success, 3xx never followed, 410 permanent, anything else retryable. */
export function outcomeForStatus(status: number, text: string): WebhookOutcome {
  if (status >= 200 && status < 300) return { ok: true, status, text };
  if (status >= 300 && status < 400) return failure('WEBHOOK_REDIRECT', true, text, status);
  if (status === 410) return failure('WEBHOOK_GONE', false, text, status);
  return failure('WEBHOOK_HTTP_ERROR', true, text, status);
}

function parseTarget(url: string): URL | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function requestOptions(target: URL, input: SendWebhookInput): http.RequestOptions {
  return {
    method: 'POST',
    protocol: target.protocol,
    // An IPv6 literal comes bracketed from URL; the guard and the socket want the bare address.
    hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: target.port || undefined,
    path: `${target.pathname}${target.search}`,
    auth: target.username ? `${safeDecode(target.username)}:${safeDecode(target.password)}` : undefined,
    agent: guardedAgent(target.protocol as 'http:' | 'https:', input.allowPrivateTargets),
    headers: {
      ...input.headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(input.body),
      'user-agent': WEBHOOK_USER_AGENT,
    },
  };
}

/**
 * POSTs one webhook attempt and says what happened; never throws for anything the target or the network does.
 * Redirects are not followed; the SSRF guard (`target-guard.ts`) checks the address actually connected to.
 */
export function sendWebhook(input: SendWebhookInput): Promise<WebhookOutcome> {
  if (!(input.timeoutMs > 0 && Number.isFinite(input.timeoutMs))) throw new RangeError('timeoutMs must be > 0');
  const target = parseTarget(input.url);
  if (!target) return Promise.resolve(failure('WEBHOOK_INVALID_URL', false, 'Only http(s) URLs can receive webhooks'));
  if (input.signal?.aborted) return Promise.resolve(failure('WEBHOOK_ABORTED', true, 'Aborted before sending'));
  return new Promise((resolve) => attempt(target, input, resolve));
}

function attempt(target: URL, input: SendWebhookInput, resolve: (outcome: WebhookOutcome) => void): void {
  // Two listeners rather than AbortSignal.any: nothing stays attached to a long-lived caller signal after the attempt.
  const deadline = AbortSignal.timeout(input.timeoutMs);
  const decoder = new TextDecoder();
  let status: number | undefined;
  let text = '';
  let bytes = 0;
  let settled = false;

  const finish = (outcome: WebhookOutcome) => {
    if (settled) return;
    settled = true;
    deadline.removeEventListener('abort', onAbort);
    input.signal?.removeEventListener('abort', onAbort);
    request.destroy();
    resolve(outcome);
  };
  const finishWithStatus = () => finish(outcomeForStatus(status as number, text));
  function onAbort() {
    if (status !== undefined) return finishWithStatus();
    if (deadline.aborted) return finish(failure('WEBHOOK_TIMEOUT', true, `No response within ${input.timeoutMs} ms`));
    finish(failure('WEBHOOK_ABORTED', true, 'Aborted'));
  }

  const request = (target.protocol === 'https:' ? https : http).request(requestOptions(target, input));
  deadline.addEventListener('abort', onAbort);
  input.signal?.addEventListener('abort', onAbort);
  request.on('error', (err) => {
    if (status !== undefined) return finishWithStatus();
    if (isTargetRefusal(err)) {
      return finish(failure('WEBHOOK_TARGET_FORBIDDEN', false, 'The target address is not allowed (not public)'));
    }
    const code = (err as NodeJS.ErrnoException).code;
    finish(failure('WEBHOOK_CONNECTION_FAILED', true, code ? `Connection failed: ${code}` : 'Connection failed'));
  });
  request.on('response', (response) => {
    status = response.statusCode ?? 0;
    response.on('data', (chunk: Buffer) => {
      const room = MAX_RESPONSE_TEXT_BYTES - bytes;
      text += decoder.decode(chunk.subarray(0, room), { stream: true });
      bytes += Math.min(chunk.length, room);
      if (bytes >= MAX_RESPONSE_TEXT_BYTES) finishWithStatus();
    });
    response.on('end', finishWithStatus);
    response.on('error', finishWithStatus);
  });
  request.end(input.body);
}
