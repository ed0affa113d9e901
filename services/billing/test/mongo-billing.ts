import type { MongoDb } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { migrateMongoBilling } from '../src/store/mongo/index.ts';

/**
 * For e2e files: a fresh test database (`useTestMongo`) migrated to billing's latest shape on first use. Call at the
 * top level of the file; the returned function is usable once `beforeAll` has run.
 */
export function useBillingMongo(): () => Promise<MongoDb> {
  const mongo = useTestMongo();
  let migrated: Promise<unknown> | undefined;
  return async () => {
    const db = mongo().db;
    if (!db) throw new Error('useBillingMongo: the connection is not open');
    migrated ??= migrateMongoBilling(db);
    await migrated;
    return db;
  };
}
