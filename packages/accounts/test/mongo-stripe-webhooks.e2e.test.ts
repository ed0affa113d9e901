import { randomBytes } from 'node:crypto';
import { loadTestRunConfig } from '@formgate/kit/testing';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import { createMongoAccountsStore } from '../src/mongo/index.ts';
import { runStripeWebhookContract } from './stripe-webhooks.contract.ts';

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

// As the distributed gateway runs it: the accounts database on MongoDB (FerretDB here), migrated at start.
runStripeWebhookContract({
  name: 'mongo',
  async open() {
    const db = client.db(`fg_test_${randomBytes(6).toString('hex')}`);
    return { store: createMongoAccountsStore(db), close: async () => void (await db.dropDatabase()) };
  },
});
