import { classifyFailure } from '@formgate/contracts';
import { AppError, ERROR_CODES } from '@formgate/kit';
import type { BetterAuthPlugin } from 'better-auth';
import { APIError } from 'better-auth/api';

/** The part of better-auth's database adapter the guard wraps; every method returns a promise. */
type Adapter = Record<string | symbol, unknown>;

/** Wraps better-auth's adapter (inside the deadline): the fault injector of tests (`@formgate/accounts/testing`). */
export type AdapterWrapper = <A extends object>(adapter: A) => A;

/** What a write through better-auth's adapter touched: lets the API key cache forget revoked keys at once. */
export interface AdapterWrite {
  model: string;
  method: string;
  where: { field: string; value: unknown; operator?: string }[];
  update?: Record<string, unknown>;
}

export interface AdapterGuardOptions {
  /** Every call of better-auth's adapter settles within this, or fails as unavailable. */
  timeoutMs: number;
  onWrite?: (write: AdapterWrite) => void;
  wrap?: AdapterWrapper;
  /**
   * A real round trip to the accounts database (`StoreHealth.healthy`): an error the driver words in a way not
   * known to mean "unreachable" still answers 503 while this says the store is down.
   */
  storeHealthy?: () => Promise<boolean>;
}

const DATA_METHODS = new Set([
  'create',
  'findOne',
  'findMany',
  'count',
  'update',
  'updateMany',
  'delete',
  'deleteMany',
  'consumeOne',
  'incrementOne',
]);
const WRITES = new Set(['update', 'updateMany', 'delete', 'deleteMany', 'consumeOne', 'incrementOne']);
/**
 * The accounts database did not answer: better-auth's adapter timed out or could not reach it. An `APIError`, so
 * better-auth passes it through its endpoints as it is (503 + Retry-After on `/api/auth/*`) instead of turning it
 * into a 500; the authenticator and the gateway's own routes answer `AUTH_UNAVAILABLE` for it.
 */
export class AccountsUnavailableError extends APIError {
  constructor(cause: unknown) {
    const { status, message, retryAfterSeconds } = ERROR_CODES.AUTH_UNAVAILABLE;
    super(status as 503, { code: 'AUTH_UNAVAILABLE', message }, { 'retry-after': String(retryAfterSeconds) });
    this.cause = cause;
  }
}

/**
 * True for an error that says the database could not be reached or did not answer, not that a query failed. An
 * `AppError`'s own `retryable` speaks of its HTTP answer (a 429 is retryable), not of the database: only its cause
 * is judged.
 */
export function isUnreachable(err: unknown): boolean {
  if (err instanceof AccountsUnavailableError) return true;
  if (err instanceof AppError) return err.cause !== undefined && isUnreachable(err.cause);
  return classifyFailure(err) === 'transient';
}

/** `err` as `AccountsUnavailableError` when it means the store is down: by its kind, or else by a round trip. */
async function unavailableOr(err: unknown, storeHealthy: AdapterGuardOptions['storeHealthy']): Promise<unknown> {
  if (isUnreachable(err)) return new AccountsUnavailableError(err);
  const healthy = storeHealthy ? await storeHealthy().catch(() => false) : true;
  return healthy ? err : new AccountsUnavailableError(err);
}

function withDeadline<T>(work: () => Promise<T>, opts: AdapterGuardOptions, what: string): Promise<T> {
  const { timeoutMs } = opts;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new AccountsUnavailableError(new Error(`${what} took over ${timeoutMs} ms`))),
      timeoutMs,
    );
    Promise.resolve()
      .then(work)
      .then(resolve, (err: unknown) => unavailableOr(err, opts.storeHealthy).then(reject))
      .finally(() => clearTimeout(timer));
  });
}

/**
 * better-auth's adapter with a deadline on every call and unreachability reported as `AccountsUnavailableError`;
 * other errors (a duplicate key the outbox lease relies on) pass through unchanged. A transaction's adapter is
 * guarded the same way.
 */
export function guardAdapter<A extends object>(adapter: A, opts: AdapterGuardOptions): A {
  const inner = (opts.wrap ? opts.wrap(adapter) : adapter) as Adapter;
  return new Proxy(inner, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (prop === 'transaction')
        return (run: (trx: object) => Promise<unknown>) =>
          value.call(target, (trx: object) => run(guardAdapter(trx, opts)));
      if (!DATA_METHODS.has(String(prop))) return value.bind(target);
      const method = String(prop);
      return async (query: AdapterWrite) => {
        try {
          return await withDeadline(() => value.call(target, query), opts, method);
        } finally {
          // Even a failed write may have been applied: forgetting a cached key is always safe.
          if (WRITES.has(method)) opts.onWrite?.({ ...query, method, where: query.where ?? [] });
        }
      };
    },
  }) as A;
}

/**
 * Installs the guard as better-auth's adapter: a plugin's `init` may replace the context's adapter, and better-auth
 * builds its internal adapter (sessions, users) from the replaced one. Listed first, so later plugins see it too.
 */
export function adapterGuardPlugin(opts: AdapterGuardOptions) {
  return {
    id: 'formgate-adapter-guard',
    init: (ctx) => ({ context: { adapter: guardAdapter(ctx.adapter, opts) } }),
  } satisfies BetterAuthPlugin;
}

/**
 * better-auth's rate limit answers 429 with `X-Retry-After` (seconds); clients and proxies read the standard
 * `Retry-After`, which the API's own 429s send: the same value under that name too.
 */
function withRetryAfter(response: Response): Response {
  const seconds = response.status === 429 ? response.headers.get('x-retry-after') : null;
  if (seconds === null || response.headers.has('retry-after')) return response;
  const headers = new Headers(response.headers);
  headers.set('retry-after', seconds);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * better-auth's own endpoints (`/api/auth/*`) with an unreachable database answered 503 + Retry-After where
 * better-auth would not: its database rate limiter runs before any endpoint, and what it throws becomes a 500. Its
 * 429s get `Retry-After`.
 */
export function guardAuthHandler(handler: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    try {
      return withRetryAfter(await handler(request));
    } catch (err) {
      if (!isUnreachable(err)) throw err;
      const { body, headers } = new AccountsUnavailableError(err);
      return Response.json(body, { status: 503, headers });
    }
  };
}
