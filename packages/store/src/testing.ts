import { randomBytes } from 'node:crypto';
import { loadTestRunConfig } from '@formgate/kit/testing';
import type { Connection } from 'mongoose';
import { afterAll, beforeAll } from 'vitest';
import { connectMongo } from './mongo.ts';

/**
 * For e2e test files of Mongo adapters: a connection to a fresh, uniquely named database on the Mongo-wire server
 * the e2e global setup provides (`MONGO_URL`), dropped after the file. Call at the top level of the file; it throws
 * — never skips — when `MONGO_URL` is missing.
 */
export function useTestMongo(): () => Connection {
  const url = loadTestRunConfig().MONGO_URL;
  if (!url) {
    throw new Error(
      'MONGO_URL is not set: the e2e globalSetup must start FerretDB (or point at MongoDB) and export it',
    );
  }
  let conn: Connection | undefined;
  beforeAll(async () => {
    conn = await connectMongo(url, `fg_test_${randomBytes(6).toString('hex')}`);
  });
  afterAll(async () => {
    await conn?.db?.dropDatabase();
    await conn?.close();
  });
  return () => {
    if (!conn) throw new Error('useTestMongo: the connection exists only once beforeAll has run');
    return conn;
  };
}
