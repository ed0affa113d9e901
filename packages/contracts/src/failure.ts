/**
 * Why a handler failed, as far as delivery is concerned:
 * - `transient`: infrastructure that is down (a network error, a database that cannot be reached, a busy SQLite
 *   file, the bus itself). Retried without limit: the record is fine, the world is not.
 * - `permanent`: the record can never be handled (an `AppError` with `retryable: false`, a payload that does not
 *   parse or does not match its schema). Dead-lettered at once.
 * - `unknown`: anything else. Retried a bounded number of times, then dead-lettered.
 */
export type FailureClass = 'transient' | 'permanent' | 'unknown';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const MONGO_TRANSIENT = new Set([
  'MongoNetworkError',
  'MongoServerSelectionError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
]);
const MONGO_TRANSIENT_LABELS = ['RetryableWriteError', 'TransientTransactionError'];

type ErrorLike = {
  name?: unknown;
  code?: unknown;
  retryable?: unknown;
  issues?: unknown;
  errorLabels?: unknown;
  hasErrorLabel?: unknown;
  cause?: unknown;
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

function isTransient(e: ErrorLike): boolean {
  if (e.name === 'BusUnavailableError') return true;
  if (typeof e.code === 'string') {
    if (NETWORK_CODES.has(e.code) || /^SQLITE_(BUSY|LOCKED)/.test(e.code)) return true;
  }
  return (typeof e.name === 'string' && MONGO_TRANSIENT.has(e.name)) || hasTransientLabel(e);
}

/**
 * Classifies a handler's failure. The error and then its `cause` chain are examined, outermost first; the first
 * error that says anything decides: its own `retryable` flag, then the permanent kinds (`ZodError`, `SyntaxError`),
 * then the transient kinds (`BusUnavailableError`, Node network codes, MongoDB network/selection errors and
 * transient labels, `SQLITE_BUSY`/`SQLITE_LOCKED`). So an `AppError` that wraps a network error keeps its own word,
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
