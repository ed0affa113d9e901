import { randomBytes, randomUUID } from 'node:crypto';
import { connectMongo } from '@formgate/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMongoOrgsStore } from '../src/store/mongo-orgs-store.ts';
import { DEFAULT_ORG_SETTINGS } from '../src/store/orgs-store.ts';
import { runOrgsStoreContract } from './orgs-store.contract.ts';

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

runOrgsStoreContract({ name: 'mongo', create: () => createMongoOrgsStore(conn) });

describe('mongo OrgsStore: a purge cut short', () => {
  it('hides the organization once marked deleted, and a repeated purge finishes the job', async () => {
    const store = await createMongoOrgsStore(conn);
    const scope = { orgId: `org_${randomUUID()}` };
    await store.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    await store.appendAudit(scope, {
      id: randomUUID(),
      type: 'team.created',
      actor: null,
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: {},
    });
    await conn.db
      ?.collection<{ _id: string }>('organizations')
      .updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
    expect(await store.getOrganization(scope)).toMatchObject({ deleted: true });
    expect(await store.getSettings(scope)).toBeNull();
    await store.purge(scope);
    expect(await store.getOrganization(scope)).toBeNull();
    expect(await store.listAudit(scope, { limit: 10 })).toEqual([]);
  });
});
