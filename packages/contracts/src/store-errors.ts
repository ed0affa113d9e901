/**
 * The errors that say "the storage behind the server is down or not writable right now", not "this record is bad":
 * the one list of them, for `classifyFailure`. A record whose handler fails with one of these waits; it is never
 * dead-lettered. What is not named here is judged by a real round trip to the store (`StoreHealth`) before any record
 * goes to a dead-letter topic, so this list makes the common cases cheap, not the promise correct.
 */

/**
 * The MongoDB driver's own error classes for a server it cannot reach or a pool it had to clear, and Mongoose's for a
 * connection whose first server selection failed (`MongooseServerSelectionError`, with no `cause`: what
 * `connectMongo` rejects with while no server answers).
 */
export const MONGO_UNREACHABLE_NAMES: ReadonlySet<string> = new Set([
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
  'MongoServerClosedError',
  'MongoWaitQueueTimeoutError',
]);

/**
 * Error labels the server or driver puts on an operation worth retrying: a write that may be retried, a transaction
 * that may be retried, a pool reset, an overloaded server (MongoDB 8's `SystemOverloadedError` / `RetryableError`).
 */
export const MONGO_TRANSIENT_LABELS: readonly string[] = [
  'RetryableWriteError',
  'TransientTransactionError',
  'ResetPool',
  'SystemOverloadedError',
  'RetryableError',
];

/**
 * Server error codes of a replica set that cannot take the operation now (MongoDB's retryable-writes list, the
 * "not primary" and shutdown codes, write-concern and time-limit failures): `code` on a `MongoServerError`, or on
 * the `writeConcernError` of a write that was applied but not acknowledged by enough members.
 */
export const MONGO_UNAVAILABLE_CODES: ReadonlySet<number> = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed (wtimeout)
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  202, // NetworkInterfaceExceededTimeLimit
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11601, // Interrupted
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * FerretDB 1.x answers `InternalError` (code 1) with its backend's message when PostgreSQL (or its SQLite file)
 * fails under it: pgx's connection errors, PostgreSQL's admin-shutdown and cannot-connect-now SQLSTATEs (57P01..03),
 * class 08 (connection exception), a closed pool or connection, and SQLite's busy/full/I-O errors.
 */
const FERRETDB_BACKEND_DOWN =
  /failed to connect to `|SQLSTATE (08\w{3}|57P0[1-3])|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|server closed the connection|conn closed|closed pool|connection refused|connection reset by peer|broken pipe|unexpected EOF|i\/o timeout|SQLITE_(BUSY|FULL|IOERR|CANTOPEN)/i;

/** FerretDB's `InternalError` whose message names its storage backend as down. */
export function isFerretDbBackendDown(code: unknown, message: unknown): boolean {
  return code === 1 && typeof message === 'string' && FERRETDB_BACKEND_DOWN.test(message);
}

/** Node's socket errors: the peer refused, reset, timed out or could not be resolved. */
export const NETWORK_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** SQLite: another writer holds the file, or the disk is full, failing or gone (better-sqlite3's `code`). */
export const SQLITE_UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN)/;
