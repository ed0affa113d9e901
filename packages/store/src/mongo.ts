import { mapLimit } from '@formgate/kit';
import mongoose, { type Connection, type mongo } from 'mongoose';

/** A mongoose connection to one service's database. */
export type MongoConnection = Connection;
/** The native driver's database handle behind a `MongoConnection`. */
export type MongoDb = NonNullable<Connection['db']>;

/**
 * Commands the driver's command monitoring reports that are not the application's: the connection handshake and
 * liveness checks (`hello`, its legacy names, `ping`). `onCommand` never sees them.
 */
const NOT_COUNTED_COMMANDS: ReadonlySet<string> = new Set(['hello', 'isMaster', 'ismaster', 'ping']);

export interface ConnectMongoOptions {
  /**
   * Called with the name of every command this connection sends (`insert`, `find`, `getMore`, `update`…, as the
   * driver's `commandStarted` event names it), except `NOT_COUNTED_COMMANDS`. Turns the driver's command monitoring
   * on (`monitorCommands`): keep it to a counter increment, it runs once per command.
   */
  onCommand?: (command: string) => void;
}

/**
 * Opens a dedicated mongoose connection to `dbName` (a database per service). Only features that work on both
 * MongoDB 7+ and FerretDB 1.24 are used by Formgate's adapters: no multi-document transactions, no change
 * streams, no `$text`.
 */
export async function connectMongo(
  url: string,
  dbName: string,
  options: ConnectMongoOptions = {},
): Promise<Connection> {
  const { onCommand } = options;
  const conn = mongoose.createConnection(url, {
    dbName,
    autoIndex: false,
    autoCreate: false,
    // An unreachable database must fail a request within the gateway's deadline (an honest 503, not a 504 or a
    // hang): commands are not buffered while disconnected, and finding a server gives up after 3 s.
    serverSelectionTimeoutMS: 3_000,
    bufferCommands: false,
    maxPoolSize: 20,
    ...(onCommand ? { monitorCommands: true } : {}),
  });
  try {
    await conn.asPromise();
  } catch (err) {
    // Nothing of it is used again: a caller that retries opens a new connection.
    await conn.close().catch(() => {});
    throw err;
  }
  // On the client, which outlives reconnections: nothing is sent on the connection before `asPromise` resolved but
  // its handshake, which is not counted anyway.
  if (onCommand) {
    conn.getClient().on('commandStarted', (event) => {
      if (!NOT_COUNTED_COMMANDS.has(event.commandName)) onCommand(event.commandName);
    });
  }
  return conn;
}

/** Where `probeStorage` writes: one document per probing process, never read by anything else. */
const HEALTH_COLLECTION = 'formgate_health';

/**
 * A round trip that reaches the storage behind the server: an upsert of this process's probe document. A `ping` is
 * not one — FerretDB answers it itself while its PostgreSQL is down, and a MongoDB secondary answers it while no
 * primary can take writes. Rejects with the driver's error when the store cannot take the write. For `StoreHealth`.
 */
export async function probeStorage(db: MongoDb, probe: string): Promise<void> {
  // By `_id`.
  await db
    .collection<{ _id: string; at: Date }>(HEALTH_COLLECTION)
    .updateOne({ _id: probe }, { $set: { at: new Date() } }, { upsert: true });
}

/** True for a duplicate-key error (E11000), including inside a bulk write. */
export function isDuplicateKeyError(err: unknown): boolean {
  return (err as { code?: number })?.code === 11000;
}

/**
 * Runs one insert whose unique `_id` (or index) is a claim: true when it was stored, false when the key was taken
 * (the atomic check of ADR 55 — an insert is, a conditional update on FerretDB 1.24 is not).
 */
export async function insertOnce(insert: Promise<unknown>): Promise<boolean> {
  try {
    await insert;
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

type WriteError = { code?: number; index?: number };
/** The per-document errors of a failed `insertMany` (one, not in a list, on some drivers' paths); none for others. */
const writeErrorsOf = (err: unknown) => [(err as { writeErrors?: unknown }).writeErrors ?? []].flat() as WriteError[];

/** For `.catch` after an insert or an unordered `insertMany`: duplicates are fine, anything else is rethrown. */
export function ignoreDuplicates(err: unknown): void {
  const writeErrors = writeErrorsOf(err);
  if (writeErrors.length === 0 ? isDuplicateKeyError(err) : writeErrors.every((w) => w.code === 11000)) return;
  throw err;
}

/**
 * For `.catch` after an unordered `insertMany`: the positions it found taken (duplicate `_id`s); any other failure
 * is rethrown.
 */
export function duplicateIndexes(err: unknown): number[] {
  const writeErrors = writeErrorsOf(err);
  if (writeErrors.length === 0 || writeErrors.some((w) => w.code !== 11000 || w.index === undefined)) throw err;
  return writeErrors.map((w) => w.index as number);
}

/**
 * The documents of `ids` that `collection` holds (in no particular order): one read by `_id` each, 8 at a time,
 * where one `$in` would do on MongoDB — FerretDB 1.24 answers an `$in` by reading the whole collection (ADR 56).
 */
export async function findByIds<T extends { _id: string }>(
  collection: mongo.Collection<T>,
  ids: Iterable<string>,
  options: mongo.FindOptions = {},
): Promise<mongo.WithId<T>[]> {
  const found = await mapLimit([...new Set(ids)], 8, (_id) => collection.findOne({ _id } as mongo.Filter<T>, options));
  return found.filter((d) => d !== null);
}

/**
 * The documents whose `field` equals one of `values` (in no particular order): one `find` per value, 8 at a time,
 * where one `$in` would do on MongoDB — FerretDB 1.24 answers an `$in` by reading the whole collection (ADR 56). Each
 * `find` is an equality on `field`: name the index that serves it where you call this.
 */
export async function findEachEqual<T extends mongo.Document>(
  collection: mongo.Collection<T>,
  field: string,
  values: Iterable<string>,
  options: mongo.FindOptions = {},
): Promise<mongo.WithId<T>[]> {
  const found = await mapLimit([...new Set(values)], 8, (value) =>
    collection.find({ [field]: value } as mongo.Filter<T>, options).toArray(),
  );
  return found.flat();
}

/** Which of `ids` `collection` holds (`findByIds`, reading `_id` only). */
export async function existingIds<T extends { _id: string }>(
  collection: mongo.Collection<T>,
  ids: Iterable<string>,
): Promise<Set<string>> {
  return new Set((await findByIds(collection, ids, { projection: { _id: 1 } })).map((d) => d._id as string));
}

/** One `updateOne` of `updateEachOne`. */
export interface UpdateOneOp<T extends mongo.Document> {
  filter: mongo.Filter<T>;
  update: mongo.UpdateFilter<T>;
  upsert?: boolean;
}

/**
 * Runs each `updateOne`, at most `concurrency` at a time, each its own command, where one `bulkWrite` would do on
 * MongoDB: FerretDB 1.24 keeps the PostgreSQL connection of every statement of an `update` command until the command
 * ends, so a bulk write of more statements than its pool (`FERRETDB_PG_POOL`) has deadlocks it, and a smaller one
 * starves every other client while it runs (seen in P12: a 200-statement `bulkWrite` stalled a notifications
 * instance for good). An upsert that loses to a concurrent insert of the same `_id` (a duplicate key) is run once
 * more: it then updates.
 */
export async function updateEachOne<T extends mongo.Document>(
  collection: mongo.Collection<T>,
  ops: readonly UpdateOneOp<T>[],
  concurrency = 8,
): Promise<void> {
  const one = (op: UpdateOneOp<T>) => collection.updateOne(op.filter, op.update, { upsert: op.upsert ?? false });
  await mapLimit(ops, concurrency, (op) =>
    one(op).catch((err: unknown) => {
      if (op.upsert && isDuplicateKeyError(err)) return one(op);
      throw err;
    }),
  );
}

/** Whether the server is FerretDB (it answers `buildInfo` with its own version fields), not MongoDB. */
export async function isFerretDb(db: MongoDb): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return Object.keys(info).some((k) => k.toLowerCase().startsWith('ferretdb'));
}
