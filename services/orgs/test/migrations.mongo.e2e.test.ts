import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { migrateMongoOrgs } from '../src/store/mongo/index.ts';

const mongo = useTestMongo();

describe('orgs MongoDB migrations', () => {
  it('bring an empty database to the latest shape once: every index the adapters name', async () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    expect(await migrateMongoOrgs(db)).toEqual({ scope: 'orgs', applied: [1], version: 1 });
    const indexes = async (name: string) =>
      (await db.collection(name).indexes()).map((i) => [i.name, i.key]).filter(([n]) => n !== '_id_');
    expect(await indexes('audit_log')).toEqual([['org_newest', { orgId: 1, occurredAt: -1, _id: -1 }]]);
    expect(await indexes('org_spam_versions')).toEqual([['org_version', { orgId: 1, version: -1 }]]);
    expect(await indexes('org_spam_outbox')).toEqual([['org_version', { orgId: 1, version: 1 }]]);
    expect(await migrateMongoOrgs(db)).toEqual({ scope: 'orgs', applied: [], version: 1 });
  });
});
