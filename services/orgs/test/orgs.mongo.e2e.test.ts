import { randomUUID } from 'node:crypto';
import type { MongoDb } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { createMongoOrgsStores, migrateMongoOrgs } from '../src/store/mongo/index.ts';
import type { OrgsStores } from '../src/store/orgs-stores.ts';
import { DEFAULT_ORG_SETTINGS } from '../src/store/records.ts';
import { purgeOrganization } from '../src/use-cases/purge-organization.ts';
import { runAuditStoreContract } from './audit-store.contract.ts';
import { runOrgSpamStoreContract } from './org-spam-store.contract.ts';
import { runOrgsStoreContract } from './orgs-store.contract.ts';

const mongo = useTestMongo();
let migrated: Promise<unknown> | undefined;
/** The test database, migrated to the latest shape on first use. */
const db = async (): Promise<MongoDb> => {
  const handle = mongo().db;
  if (!handle) throw new Error('not connected');
  migrated ??= migrateMongoOrgs(handle);
  await migrated;
  return handle;
};
const stores = async () => createMongoOrgsStores(await db());

const target = { name: 'mongo', create: stores };
runOrgsStoreContract(target);
runAuditStoreContract(target);
runOrgSpamStoreContract(target);

describe('mongo OrgsStore: a purge cut short', () => {
  it('hides the organization once marked deleted, and a repeated purge finishes the job', async () => {
    const store = await stores();
    const scope = { orgId: `org_${randomUUID()}` };
    await store.orgs.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    await store.audit.appendAudit(scope, {
      id: randomUUID(),
      type: 'team.created',
      actor: null,
      occurredAt: '2026-01-01T00:00:00.000Z',
      data: {},
    });
    await (await db())
      .collection<{ _id: string }>('organizations')
      .updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
    expect(await store.orgs.getOrganization(scope)).toMatchObject({ deleted: true });
    expect(await store.orgs.getSettings(scope)).toBeNull();
    await purgeOrganization(store, scope);
    expect(await store.orgs.getOrganization(scope)).toBeNull();
    expect(await store.audit.listAudit(scope, { limit: 10 })).toEqual([]);
  });
});

// ADR 55: on FerretDB 1.24 an update writes the whole document back, so every document here has one writer.
describe('mongo OrgsStore: one writer per document', () => {
  const created = async ({ orgs }: OrgsStores) => {
    const scope = { orgId: `org_${randomUUID()}` };
    await orgs.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    return scope;
  };

  it('loses no settings, spam or rename change while a relay marks as fast as it can and the consumer renames', async () => {
    const store = await stores();
    const scope = await created(store);
    let changing = true;
    const relay = (async () => {
      let passes = 0;
      while (changing || passes === 0) {
        passes++;
        for (const s of await store.spam.listUnpublishedSpamSettings(10_000)) {
          if (s.orgId === scope.orgId) await store.spam.markSpamSettingsPublished(s.orgId, s.version);
        }
      }
      return passes;
    })();
    let renames = 0;
    const consumer = (async () => {
      while (changing) {
        renames++;
        await store.orgs.updateOrganization(scope, { name: `Acme ${renames}`, slug: `acme-${renames}` });
      }
    })();
    const lost: number[] = [];
    for (let v = 1; v <= 30; v++) {
      // One PATCH: the spam defaults first (which kicks the relay), then the settings.
      expect(await store.spam.replaceSpamSettings(scope, { timeTrapSeconds: v }, v - 1)).toBe(true);
      await store.orgs.updateSettings(scope, {
        submission_notification_email: `n${v}@example.com`,
        email_management: v % 2 === 0,
      });
      await new Promise((r) => setTimeout(r, v % 3));
      const spam = await store.spam.getSpamSettings(scope);
      const settings = await store.orgs.getSettings(scope);
      if (spam?.version !== v || settings?.submission_notification_email !== `n${v}@example.com`) lost.push(v);
    }
    changing = false;
    await consumer;
    expect(await relay).toBeGreaterThan(1);
    expect(lost).toEqual([]);
    expect(await store.spam.getSpamSettings(scope)).toEqual({
      orgId: scope.orgId,
      spam: { timeTrapSeconds: 30 },
      version: 30,
    });
    expect(await store.orgs.getSettings(scope)).toEqual({
      submission_notification_email: 'n30@example.com',
      email_management: true,
    });
    expect(await store.orgs.getOrganization(scope)).toMatchObject({ name: `Acme ${renames}`, slug: `acme-${renames}` });
    // The relay catches up with the last version, then has nothing left of this organization.
    const pending = async () =>
      (await store.spam.listUnpublishedSpamSettings(10_000)).filter((s) => s.orgId === scope.orgId);
    for (const s of await pending()) await store.spam.markSpamSettingsPublished(s.orgId, s.version);
    expect(await pending()).toEqual([]);
    const mark = await (await db())
      .collection<{ _id: string; version: number }>('org_spam_published')
      .findOne({ _id: scope.orgId });
    expect(mark?.version).toBe(30);
    // Old versions are pruned; the purge leaves nothing of the organization in any collection.
    expect(await (await db()).collection('org_spam_versions').countDocuments({ orgId: scope.orgId })).toBe(2);
    await purgeOrganization(store, scope);
    for (const name of ['org_spam_versions', 'org_spam_outbox']) {
      expect(await (await db()).collection(name).countDocuments({ orgId: scope.orgId })).toBe(0);
    }
    for (const name of ['organizations', 'org_settings', 'org_spam_published']) {
      expect(await (await db()).collection<{ _id: string }>(name).countDocuments({ _id: scope.orgId })).toBe(0);
    }
  });

  it('publishes a spam version whose outbox record a dead process never wrote, at the first pass of a relay', async () => {
    const store = await stores();
    const scope = await created(store);
    const pending = async (s: OrgsStores) =>
      (await s.spam.listUnpublishedSpamSettings(10_000)).filter((x) => x.orgId === scope.orgId);
    expect(await pending(store)).toEqual([]);
    // Version 1 written, and the process gone before its outbox record.
    await (await db())
      .collection<{ _id: string; orgId: string; version: number; spam: unknown }>('org_spam_versions')
      .insertOne({ _id: `${scope.orgId}:1`, orgId: scope.orgId, version: 1, spam: { shadow: true } });
    expect(await pending(store)).toEqual([]);
    const restarted = await stores();
    expect(await pending(restarted)).toEqual([{ orgId: scope.orgId, spam: { shadow: true }, version: 1 }]);
    await restarted.spam.markSpamSettingsPublished(scope.orgId, 1);
    expect(await pending(restarted)).toEqual([]);
  });
});
