import { randomUUID } from 'node:crypto';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { createMongoOrgsStore } from '../src/store/mongo-orgs-store.ts';
import { DEFAULT_ORG_SETTINGS } from '../src/store/orgs-store.ts';
import { runOrgsStoreContract } from './orgs-store.contract.ts';

const mongo = useTestMongo();

runOrgsStoreContract({ name: 'mongo', create: () => createMongoOrgsStore(mongo()) });

describe('mongo OrgsStore: a purge cut short', () => {
  it('hides the organization once marked deleted, and a repeated purge finishes the job', async () => {
    const store = await createMongoOrgsStore(mongo());
    const scope = { orgId: `org_${randomUUID()}` };
    await store.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    await store.appendAudit(scope, {
      id: randomUUID(),
      type: 'team.created',
      actor: null,
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: {},
    });
    await mongo()
      .db?.collection<{ _id: string }>('organizations')
      .updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
    expect(await store.getOrganization(scope)).toMatchObject({ deleted: true });
    expect(await store.getSettings(scope)).toBeNull();
    await store.purge(scope);
    expect(await store.getOrganization(scope)).toBeNull();
    expect(await store.listAudit(scope, { limit: 10 })).toEqual([]);
  });
});
