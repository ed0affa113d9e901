import { randomBytes } from 'node:crypto';
import { connectMongo } from '@formgate/store';
import { afterAll, beforeAll } from 'vitest';
import { createMongoUsageStore } from '../src/store/mongo-usage-store.ts';
import { runUsageStoreContract } from './usage-store.contract.ts';

const url = process.env.MONGO_URL;
if (!url) {
  throw new Error('MONGO_URL is not set: the e2e globalSetup must start FerretDB (or point at MongoDB) and export it');
}

let conn: Awaited<ReturnType<typeof connectMongo>>;

beforeAll(async () => {
  conn = await connectMongo(url, `fg_test_${randomBytes(6).toString('hex')}`);
});
afterAll(async () => {
  await conn?.db?.dropDatabase();
  await conn?.close();
});

runUsageStoreContract({ name: 'mongo', create: () => createMongoUsageStore(conn) });
