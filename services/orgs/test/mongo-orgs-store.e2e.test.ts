import { randomUUID } from 'node:crypto';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import { createMongoOrgsStore } from '../src/store/mongo-orgs-store.ts';
import { DEFAULT_ORG_SETTINGS, type OrgsStore } from '../src/store/orgs-store.ts';
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

// ADR 55: on FerretDB 1.24 an update writes the whole document back, so every document here has one writer.
describe('mongo OrgsStore: one writer per document', () => {
  const db = () => {
    const handle = mongo().db;
    if (!handle) throw new Error('not connected');
    return handle;
  };
  const created = async (store: OrgsStore) => {
    const scope = { orgId: `org_${randomUUID()}` };
    await store.createOrganization(scope, { name: 'Acme', slug: 'acme' }, DEFAULT_ORG_SETTINGS);
    return scope;
  };

  it('loses no settings, spam or rename change while a relay marks as fast as it can and the consumer renames', async () => {
    const store = await createMongoOrgsStore(mongo());
    const scope = await created(store);
    let changing = true;
    const relay = (async () => {
      let passes = 0;
      while (changing || passes === 0) {
        passes++;
        for (const s of await store.listUnpublishedSpamSettings(10_000)) {
          if (s.orgId === scope.orgId) await store.markSpamSettingsPublished(s.orgId, s.version);
        }
      }
      return passes;
    })();
    let renames = 0;
    const consumer = (async () => {
      while (changing) {
        renames++;
        await store.updateOrganization(scope, { name: `Acme ${renames}`, slug: `acme-${renames}` });
      }
    })();
    const lost: number[] = [];
    for (let v = 1; v <= 30; v++) {
      // One PATCH: the spam defaults first (which kicks the relay), then the settings.
      expect(await store.replaceSpamSettings(scope, { timeTrapSeconds: v }, v - 1)).toBe(true);
      await store.updateSettings(scope, {
        submission_notification_email: `n${v}@example.com`,
        email_management: v % 2 === 0,
      });
      await new Promise((r) => setTimeout(r, v % 3));
      const spam = await store.getSpamSettings(scope);
      const settings = await store.getSettings(scope);
      if (spam?.version !== v || settings?.submission_notification_email !== `n${v}@example.com`) lost.push(v);
    }
    changing = false;
    await consumer;
    expect(await relay).toBeGreaterThan(1);
    expect(lost).toEqual([]);
    expect(await store.getSpamSettings(scope)).toEqual({
      orgId: scope.orgId,
      spam: { timeTrapSeconds: 30 },
      version: 30,
    });
    expect(await store.getSettings(scope)).toEqual({
      submission_notification_email: 'n30@example.com',
      email_management: true,
    });
    expect(await store.getOrganization(scope)).toMatchObject({ name: `Acme ${renames}`, slug: `acme-${renames}` });
    // The relay catches up with the last version, then has nothing left of this organization.
    const pending = async () =>
      (await store.listUnpublishedSpamSettings(10_000)).filter((s) => s.orgId === scope.orgId);
    for (const s of await pending()) await store.markSpamSettingsPublished(s.orgId, s.version);
    expect(await pending()).toEqual([]);
    const mark = await db()
      .collection<{ _id: string; version: number }>('org_spam_published')
      .findOne({ _id: scope.orgId });
    expect(mark?.version).toBe(30);
    // Old versions are pruned; the purge leaves nothing of the organization in any collection.
    expect(await db().collection('org_spam_versions').countDocuments({ orgId: scope.orgId })).toBe(2);
    await store.purge(scope);
    for (const name of ['org_spam_versions', 'org_spam_outbox']) {
      expect(await db().collection(name).countDocuments({ orgId: scope.orgId })).toBe(0);
    }
    for (const name of ['organizations', 'org_settings', 'org_spam_published']) {
      expect(await db().collection<{ _id: string }>(name).countDocuments({ _id: scope.orgId })).toBe(0);
    }
  });

  it('publishes a spam version whose outbox record a dead process never wrote, at the first pass of a relay', async () => {
    const store = await createMongoOrgsStore(mongo());
    const scope = await created(store);
    const pending = async (s: OrgsStore) =>
      (await s.listUnpublishedSpamSettings(10_000)).filter((x) => x.orgId === scope.orgId);
    expect(await pending(store)).toEqual([]);
    // Version 1 written, and the process gone before its outbox record.
    await db()
      .collection<{ _id: string; orgId: string; version: number; spam: unknown }>('org_spam_versions')
      .insertOne({ _id: `${scope.orgId}:1`, orgId: scope.orgId, version: 1, spam: { shadow: true } });
    expect(await pending(store)).toEqual([]);
    const restarted = await createMongoOrgsStore(mongo());
    expect(await pending(restarted)).toEqual([{ orgId: scope.orgId, spam: { shadow: true }, version: 1 }]);
    await restarted.markSpamSettingsPublished(scope.orgId, 1);
    expect(await pending(restarted)).toEqual([]);
  });

  it('reads organizations a store before org_settings and org_spam_versions left: settings, spam, pending or not', async () => {
    const [done, behind] = [`org_${randomUUID()}`, `org_${randomUUID()}`];
    const settings = { submission_notification_email: 'old@example.com', email_management: true };
    const legacy = (_id: string, spamPending: boolean) => ({
      _id,
      name: 'Old',
      slug: 'old',
      deleted: false,
      settings,
      spam: { timeTrapSeconds: 7 },
      spamVersion: 3,
      spamPending,
    });
    await db()
      .collection<{ _id: string }>('organizations')
      .insertMany([legacy(done, false), legacy(behind, true)]);
    const store = await createMongoOrgsStore(mongo());
    const listed = (await store.listUnpublishedSpamSettings(10_000)).filter((x) => [done, behind].includes(x.orgId));
    expect(listed).toEqual([{ orgId: behind, spam: { timeTrapSeconds: 7 }, version: 3 }]);
    await store.markSpamSettingsPublished(behind, 3);
    expect(await store.getSettings({ orgId: done })).toEqual(settings);
    expect(await store.getSpamSettings({ orgId: done })).toEqual({
      orgId: done,
      spam: { timeTrapSeconds: 7 },
      version: 3,
    });
    // The next change goes on from the legacy version, and from the legacy settings.
    expect(await store.replaceSpamSettings({ orgId: done }, null, 2)).toBe(false);
    expect(await store.replaceSpamSettings({ orgId: done }, null, 3)).toBe(true);
    expect(await store.updateSettings({ orgId: done }, { email_management: false })).toEqual({
      ...settings,
      email_management: false,
    });
    expect(await store.getSpamSettings({ orgId: done })).toEqual({ orgId: done, spam: null, version: 4 });
    const restarted = await createMongoOrgsStore(mongo());
    const again = (await restarted.listUnpublishedSpamSettings(10_000)).filter((x) => [done, behind].includes(x.orgId));
    expect(again).toEqual([{ orgId: done, spam: null, version: 4 }]);
  });
});
