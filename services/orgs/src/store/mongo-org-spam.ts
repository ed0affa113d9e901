import type { SpamSettingsPatch } from '@formgate/contracts';
import { mapLimit } from '@formgate/kit';
import { createVersionOutbox, findByIds, insertOnce, type MongoDb, type VersionRecord } from '@formgate/store/mongo';
import type { OrgSpamSettings } from './orgs-store.ts';

/** One version of an organization's spam defaults; `_id` is `${orgId}:${version}`. Inserted once, never updated. */
interface SpamVersionDoc {
  _id: string;
  orgId: string;
  version: number;
  spam: SpamSettingsPatch | null;
}

/**
 * The fields of an `organizations` document this file reads: whether it is live, and the spam defaults stores
 * before this one kept on it (`spam`, `spamVersion`, `spamPending`: read, never written).
 */
export interface OrgSpamLegacy {
  _id: string;
  deleted: boolean;
  spam?: SpamSettingsPatch | null;
  spamVersion?: number;
  spamPending?: boolean;
}

/**
 * An organization's spam defaults (issue 14) and their outbox, with one writer per document (ADR 55): nothing here
 * writes the `organizations` document, which is the `orgs.lifecycle` consumer's.
 *
 * - `org_spam_versions` — one record per version (`${orgId}:${version}`), inserted by the `PATCH` that wrote it:
 *   the insert is the version check (two `PATCH`es from one version: one insert wins, the other is a conflict), and
 *   the newest record is the organization's defaults. The winner deletes the records older than the one it
 *   replaced; a writer that finds a record two newer than its own after the insert (it read a version pruned
 *   since) takes its record back and reports a conflict. The newest record is never deleted but by a purge.
 * - `org_spam_outbox` — one record per version written, inserted after the version's record and deleted by the relay
 *   once a version at least as new is published. Inserts and deletes only.
 * - `org_spam_published` — the newest version the relay confirmed, per organization; written by relays only (a
 *   lost mark there only republishes a version, which ingest's view ignores by version).
 *
 * A process that dies between the version's record and its outbox record leaves a version unrecorded; the relay's
 * reconciliation (at its first pass, then every `RECONCILE_MS`) compares every organization's newest version
 * with its mark and records what is missing. Organizations of stores before this one keep their defaults on the
 * `organizations` document: that version is read as the current one until a newer record exists, and counts as
 * published unless it was `spamPending`.
 */
export function createMongoOrgSpam(db: MongoDb, options: { now?: () => number; reconcileMs?: number } = {}) {
  const orgs = db.collection<OrgSpamLegacy>('organizations');
  const versions = db.collection<SpamVersionDoc>('org_spam_versions');
  const outbox = createVersionOutbox(db, {
    outbox: 'org_spam_outbox',
    published: 'org_spam_published',
    field: 'orgId',
    index: 'org_version',
    now: options.now,
    reconcileMs: options.reconcileMs,
    reconcile,
  });

  const liveOrg = async (orgId: string) => {
    const doc = await orgs.findOne({ _id: orgId }, { projection: { deleted: 1, spam: 1, spamVersion: 1 } });
    return doc && !doc.deleted ? doc : null;
  };

  /** The newest version records of the given organizations. */
  async function newestOf(orgIds: string[]): Promise<Map<string, SpamVersionDoc>> {
    const newest = new Map<string, SpamVersionDoc>();
    if (orgIds.length === 0) return newest;
    // One read per organization: FerretDB 1.24 answers an `$in` by reading every version record (ADR 56).
    const docs = (await mapLimit(orgIds, 8, (orgId) => versions.find({ orgId }).toArray())).flat();
    for (const d of docs) if ((newest.get(d.orgId)?.version ?? -1) < d.version) newest.set(d.orgId, d);
    return newest;
  }

  const current = (org: OrgSpamLegacy, record: SpamVersionDoc | undefined): OrgSpamSettings =>
    record && record.version > (org.spamVersion ?? 0)
      ? { orgId: org._id, spam: record.spam, version: record.version }
      : { orgId: org._id, spam: org.spam ?? null, version: org.spamVersion ?? 0 };

  /** Every organization whose newest spam version is newer than its published mark (or its legacy one). */
  async function reconcile(marks: Map<string, number>): Promise<VersionRecord[]> {
    const newest = new Map<string, number>();
    for await (const v of versions.find({}, { projection: { orgId: 1, version: 1 } })) {
      newest.set(v.orgId, Math.max(newest.get(v.orgId) ?? 0, v.version));
    }
    const behind: VersionRecord[] = [];
    // A version a store before this one left pending on the document, with no newer record: still to publish.
    // (One it marked published, `spamPending: false`, needs nothing.)
    const legacy = orgs.find({ spamPending: true }, { projection: { _id: 1, deleted: 1, spamVersion: 1 } });
    for await (const o of legacy) {
      const version = o.spamVersion ?? 0;
      if (o.deleted || version <= (newest.get(o._id) ?? 0)) continue;
      if (version > (marks.get(o._id) ?? 0)) behind.push({ id: o._id, version });
    }
    for (const [id, version] of newest) if (version > (marks.get(id) ?? 0)) behind.push({ id, version });
    return behind;
  }

  return {
    createIndexes: () =>
      Promise.all([
        versions.createIndex({ orgId: 1, version: -1 }, { name: 'org_version' }),
        outbox.createIndex(),
        // Stores before this one flagged a version to publish on the organization: the reconciliation reads them.
        orgs.createIndex({ spamPending: 1 }, { name: 'spam_pending', sparse: true }),
      ]),

    async getSpamSettings(orgId: string): Promise<OrgSpamSettings | null> {
      const org = await liveOrg(orgId);
      return org ? current(org, (await newestOf([orgId])).get(orgId)) : null;
    },

    async replaceSpamSettings(orgId: string, spam: SpamSettingsPatch | null, expectedVersion: number) {
      const org = await liveOrg(orgId);
      if (!org || current(org, (await newestOf([orgId])).get(orgId)).version !== expectedVersion) return false;
      const version = expectedVersion + 1;
      const id = `${orgId}:${version}`;
      if (!(await insertOnce(versions.insertOne({ _id: id, orgId, version, spam })))) return false;
      // This writer read a version pruned since (then a record at least two newer exists), or a purge went by:
      // take it back. (A record one newer is a writer that read this one: fine.)
      const newer = await versions.findOne({ orgId, version: { $gt: version + 1 } }, { projection: { _id: 1 } });
      if (newer || !(await liveOrg(orgId))) {
        await versions.deleteOne({ _id: id });
        return false;
      }
      await outbox.record([{ id: orgId, version }]);
      await versions.deleteMany({ orgId, version: { $lt: expectedVersion } });
      return true;
    },

    async listUnpublishedSpamSettings(limit: number): Promise<OrgSpamSettings[]> {
      const ids = [...new Set((await outbox.pending(limit)).map((e) => e.id))];
      if (ids.length === 0) return [];
      const docs = await findByIds(orgs, ids, { projection: { deleted: 1, spam: 1, spamVersion: 1 } });
      const live = docs.filter((d) => !d.deleted);
      // An organization purged since: its versions are forgotten.
      await outbox.forget(ids.filter((id) => !docs.some((d) => d._id === id)));
      const newest = await newestOf(live.map((d) => d._id));
      return live.map((d) => current(d, newest.get(d._id)));
    },

    async markSpamSettingsPublished(orgId: string, version: number) {
      await outbox.markPublished(orgId, version);
      // Published while a purge went by: leave no mark of an organization that is gone.
      const org = await orgs.findOne({ _id: orgId }, { projection: { deleted: 1 } });
      if (!org || org.deleted) await outbox.purge(orgId);
    },

    /** Deletes every spam record of the organization (a step of its purge). */
    async purge(orgId: string) {
      await versions.deleteMany({ orgId });
      await outbox.purge(orgId);
    },
  };
}
