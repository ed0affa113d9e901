import {
  isFerretDbBackendDown,
  MONGO_TRANSIENT_LABELS,
  MONGO_UNAVAILABLE_CODES,
  MONGO_UNREACHABLE_NAMES,
  NETWORK_CODES,
  SQLITE_UNAVAILABLE,
} from './store-errors.ts';

/**
 * Why a handler failed, as far as delivery is concerned:
 * - `transient`: infrastructure that is down (a network error, a database that cannot be reached, a busy SQLite
 *   file, the bus itself). Retried without limit: the record is fine, the world is not.
 * - `permanent`: the record can never be handled (an `AppError` with `retryable: false`, a payload that does not
 *   parse or does not match its schema). Dead-lettered at once.
 * - `unknown`: anything else. Retried a bounded number of times, then dead-lettered — unless a real round trip to
 *   the store (`StoreHealth`) fails, which makes it transient: a sick dependency is never a poison message.
 */
export type FailureClass = 'transient' | 'permanent' | 'unknown';

type ErrorLike = {
  name?: unknown;
  code?: unknown;
  retryable?: unknown;
  issues?: unknown;
  errorLabels?: unknown;
  hasErrorLabel?: unknown;
  cause?: unknown;
  message?: unknown;
  writeConcernError?: unknown;
};

/** `retryable` set on the error itself (as `AppError` does), not inherited. */
function ownRetryable(e: ErrorLike): boolean | undefined {
  return Object.hasOwn(e, 'retryable') && typeof e.retryable === 'boolean' ? e.retryable : undefined;
}

function isPermanent(e: ErrorLike): boolean {
  return (e.name === 'ZodError' && Array.isArray(e.issues)) || e instanceof SyntaxError;
}

function hasTransientLabel(e: ErrorLike): boolean {
  const { hasErrorLabel, errorLabels } = e;
  if (typeof hasErrorLabel === 'function') {
    return MONGO_TRANSIENT_LABELS.some((label) => hasErrorLabel.call(e, label) === true);
  }
  return Array.isArray(errorLabels) && MONGO_TRANSIENT_LABELS.some((label) => errorLabels.includes(label));
}

/** A server code of a replica set that cannot take the operation now, on the error or its write concern error. */
function hasUnavailableCode(e: ErrorLike): boolean {
  const concern = (e.writeConcernError as { code?: unknown } | undefined)?.code;
  return [e.code, concern].some((code) => typeof code === 'number' && MONGO_UNAVAILABLE_CODES.has(code));
}

function isTransient(e: ErrorLike): boolean {
  if (e.name === 'BusUnavailableError') return true;
  if (typeof e.code === 'string') return NETWORK_CODES.has(e.code) || SQLITE_UNAVAILABLE.test(e.code);
  if (typeof e.name !== 'string' || !e.name.startsWith('Mongo')) return hasTransientLabel(e);
  if (MONGO_UNREACHABLE_NAMES.has(e.name)) return true;
  return hasTransientLabel(e) || hasUnavailableCode(e) || isFerretDbBackendDown(e.code, e.message);
}

/**
 * Classifies a handler's failure. The error and then its `cause` chain are examined, outermost first; the first
 * error that says anything decides: its own `retryable` flag, then the permanent kinds (`ZodError`, `SyntaxError`),
 * then the transient kinds named in `store-errors.ts` (`BusUnavailableError`, Node network codes, the MongoDB
 * driver's unreachable-server errors, transient labels, and on a `Mongo*` error the unavailable codes and FerretDB's
 * backend-down `InternalError`; SQLite busy, locked, full or failing). So an `AppError` that wraps a network error keeps its own word,
 * and a plain error wrapping a network error is transient.
 */
export function classifyFailure(err: unknown): FailureClass {
  const seen = new Set<unknown>();
  for (let e = err; typeof e === 'object' && e !== null && !seen.has(e); e = (e as ErrorLike).cause) {
    seen.add(e);
    const retryable = ownRetryable(e);
    if (retryable !== undefined) return retryable ? 'transient' : 'permanent';
    if (isPermanent(e)) return 'permanent';
    if (isTransient(e)) return 'transient';
  }
  return 'unknown';
}
