import mongoose, { type Connection } from 'mongoose';

/** A mongoose connection to one service's database. */
export type MongoConnection = Connection;
/** The native driver's database handle behind a `MongoConnection`. */
export type MongoDb = NonNullable<Connection['db']>;

/**
 * Opens a dedicated mongoose connection to `dbName` (a database per service). Only features that work on both
 * MongoDB 7+ and FerretDB 1.24 are used by Formgate's adapters: no multi-document transactions, no change
 * streams, no `$text`.
 */
export async function connectMongo(url: string, dbName: string): Promise<Connection> {
  const conn = mongoose.createConnection(url, {
    dbName,
    autoIndex: false,
    autoCreate: false,
    // An unreachable database must fail a request within the gateway's deadline (an honest 503, not a 504 or a
    // hang): commands are not buffered while disconnected, and finding a server gives up after 3 s.
    serverSelectionTimeoutMS: 3_000,
    bufferCommands: false,
    maxPoolSize: 20,
  });
  await conn.asPromise();
  return conn;
}

/** True for a duplicate-key error (E11000), including inside a bulk write. */
export function isDuplicateKeyError(err: unknown): boolean {
  return (err as { code?: number })?.code === 11000;
}
