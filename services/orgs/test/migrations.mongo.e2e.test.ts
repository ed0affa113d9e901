import { createAuditChainVerifier } from '@formgate/contracts';
import { runMongoMigrations } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { createMongoAuditStore } from '../src/store/mongo/audit.ts';
import { migrateMongoOrgs } from '../src/store/mongo/index.ts';
import { orgsMongoMigrations } from '../src/store/mongo/migrations/index.ts';

const mongo = useTestMongo();

describe('orgs MongoDB migrations', () => {
  it('bring an empty database to the latest shape once: every index the adapters name', async () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    expect(await migrateMongoOrgs(db)).toEqual({ scope: 'orgs', applied: [1, 2], version: 2 });
    const indexes = async (name: string) =>
      (await db.collection(name).indexes()).map((i) => [i.name, i.key]).filter(([n]) => n !== '_id_');
    expect(await indexes('audit_log')).toEqual(
      expect.arrayContaining([
        ['org_newest', { orgId: 1, occurredAt: -1, _id: -1 }],
        ['org_chain', { orgId: 1, seq: 1 }],
      ]),
    );
    expect(await indexes('audit_log')).toHaveLength(2);
    expect(await indexes('org_spam_versions')).toEqual([['org_version', { orgId: 1, version: -1 }]]);
    expect(await indexes('org_spam_outbox')).toEqual([['org_version', { orgId: 1, version: 1 }]]);
    expect(await migrateMongoOrgs(db)).toEqual({ scope: 'orgs', applied: [], version: 2 });
  });

  it('chain the entries a log already had, per organization, in the order it showed them', async () => {
    const db = mongo().db;
    if (!db) throw new Error('not connected');
    await db.dropDatabase();
    await runMongoMigrations(db, 'orgs', orgsMongoMigrations.slice(0, 1));
    const actor = { userId: 'u1', email: 'a@example.com' };
    await db.collection('audit_log').insertMany([
      { _id: 'e2', orgId: 'org_a', type: 'member.added', actor, occurredAt: '2026-05-02T00:00:00.000Z', data: {} },
      {
        _id: 'e1',
        orgId: 'org_a',
        type: 'organization.created',
        actor: null,
        occurredAt: '2026-05-01T00:00:00.000Z',
        data: {},
      },
      {
        _id: 'f1',
        orgId: 'org_b',
        type: 'organization.created',
        actor: null,
        occurredAt: '2026-05-03T00:00:00.000Z',
        data: {},
      },
    ] as never[]);
    await migrateMongoOrgs(db);
    const audit = createMongoAuditStore(db);
    for (const orgId of ['org_a', 'org_b']) {
      const chain = await audit.readChain({ orgId }, { afterSeq: 0, limit: 10 });
      const verifier = createAuditChainVerifier(orgId);
      await verifier.check(chain.map((e) => ({ ...e, orgId })));
      expect(verifier.result()).toMatchObject({ ok: true, entries: orgId === 'org_a' ? 2 : 1 });
      if (orgId === 'org_a')
        expect(chain.map((e) => [e.id, e.seq])).toEqual([
          ['e1', 1],
          ['e2', 2],
        ]);
    }
  });
});
