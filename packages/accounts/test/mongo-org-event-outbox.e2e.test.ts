import { randomBytes } from 'node:crypto';
import { loadTestRunConfig } from '@formgate/kit/testing';
import { mongodbAdapter } from 'better-auth/adapters/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import { adapterOf, authOptionsFor, runOrgEventOutboxContract } from './org-event-outbox.contract.ts';

const url = loadTestRunConfig().MONGO_URL;
if (!url) {
  throw new Error('MONGO_URL is not set: the e2e globalSetup must start FerretDB (or point at MongoDB) and export it');
}

let client: MongoClient;
beforeAll(async () => {
  client = await new MongoClient(url).connect();
});
afterAll(async () => {
  await client?.close();
});

// As the distributed gateway runs it: better-auth's MongoDB adapter without transactions.
runOrgEventOutboxContract({
  name: 'mongo',
  async open() {
    const db = client.db(`fg_test_${randomBytes(6).toString('hex')}`);
    return {
      adapter: await adapterOf(authOptionsFor(mongodbAdapter(db, { transaction: false }))),
      close: async () => void (await db.dropDatabase()),
    };
  },
});
