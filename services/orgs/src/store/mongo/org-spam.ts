import type { SpamSettingsPatch } from '@formgate/contracts';
import {
  createVersionOutbox,
  findByIds,
  findEachEqual,
  insertOnce,
  type MongoDb,
  type VersionRecord,
} from '@formgate/store/mongo';
import type { OrgSpamStore } from '../org-spam-store.ts';
import type { OrgSpamSettings } from '../records.ts';
import type { OrgDoc } from './orgs.ts';

/** One version of an organization's spam defaults; `_id` is `${orgId}:${version}`. Inserted once, never updated. */
interface SpamVersionDoc {
  _id: string;
  orgId: string;
  version: number;
  spam: SpamSettingsPatch | null;
}

/**
 * `OrgSpamStore` on MongoDB 7+ or FerretDB 1.24, with one writer per document (ADR 55): nothing here writes the
 * `organizations` document (the `orgs.lifecycle` consumer's); it is read for whether the organization is live.
 *
 * - `org_spam_versions` — one record per version (`${orgId}:${version}`), inserted by the `PATCH` that wrote it:
 *   the insert is the version check (two `PATCH`es from one version: one insert wins, the other is a conflict), and
 *   the newest record is the organization's defaults. The winner deletes the records older than the one it
 *   replaced; a writer that finds a record two newer than its own after the insert (it read a version pruned
 *   since) takes its record back and reports a conflict. The newest record is never deleted but by a purge.
 * - `org_spam_outbox` / `org_spam_published` — the outbox and the relays' marks (`createVersionOutbox`).
 *
 * A process that dies between the version's record and its outbox record leaves a version unrecorded; the relay's
 * reconciliation (at its first pass, then every `RECONCILE_MS`) compares every organization's newest version
 * with its mark and records what is missing.
 */
export function createMongoOrgSpamStore(
  db: MongoDb,
  options: { now?: () => number; reconcileMs?: number } = {},
): OrgSpamStore {
  const orgs = db.collection<OrgDoc>('organizations');
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

  // By `_id`.
  const isLive = async (orgId: string) => {
    const doc = await orgs.findOne({ _id: orgId }, { projection: { deleted: 1 } });
    return doc !== null && !doc.deleted;
  };

  /** The newest version records of the given organizations (index org_version, one read each). */
  async function newestOf(orgIds: string[]): Promise<Map<string, SpamVersionDoc>> {
    const newest = new Map<string, SpamVersionDoc>();
    for (const d of await findEachEqual(versions, 'orgId', orgIds)) {
      if ((newest.get(d.orgId)?.version ?? -1) < d.version) newest.set(d.orgId, d);
    }
    return newest;
  }

  const current = (orgId: string, record: SpamVersionDoc | undefined): OrgSpamSettings =>
    record ? { orgId, spam: record.spam, version: record.version } : { orgId, spam: null, version: 0 };

  /**
   * Every organization whose newest spam version is newer than its published mark. Reads every version record (a
   * scan, at most two records per organization: older ones are pruned), once per `RECONCILE_MS`.
   */
  async function reconcile(marks: Map<string, number>): Promise<VersionRecord[]> {
    const newest = new Map<string, number>();
    for await (const v of versions.find({}, { projection: { orgId: 1, version: 1 } })) {
      newest.set(v.orgId, Math.max(newest.get(v.orgId) ?? 0, v.version));
    }
    const behind: VersionRecord[] = [];
    for (const [id, version] of newest) if (version > (marks.get(id) ?? 0)) behind.push({ id, version });
    return behind;
  }

  return {
    async getSpamSettings(scope) {
      if (!(await isLive(scope.orgId))) return null;
      return current(scope.orgId, (await newestOf([scope.orgId])).get(scope.orgId));
    },

    async replaceSpamSettings(scope, spam, expectedVersion) {
      const { orgId } = scope;
      if (!(await isLive(orgId))) return false;
      if (current(orgId, (await newestOf([orgId])).get(orgId)).version !== expectedVersion) return false;
      const version = expectedVersion + 1;
      const id = `${orgId}:${version}`;
      if (!(await insertOnce(versions.insertOne({ _id: id, orgId, version, spam })))) return false;
      // This writer read a version pruned since (then a record at least two newer exists), or a purge went by:
      // take it back. (A record one newer is a writer that read this one: fine.) Index org_version.
      const newer = await versions.findOne({ orgId, version: { $gt: version + 1 } }, { projection: { _id: 1 } });
      if (newer || !(await isLive(orgId))) {
        await versions.deleteOne({ _id: id }); // by `_id`
        return false;
      }
      await outbox.record([{ id: orgId, version }]);
      await versions.deleteMany({ orgId, version: { $lt: expectedVersion } }); // index org_version
      return true;
    },

    async listUnpublishedSpamSettings(limit) {
      const ids = [...new Set((await outbox.pending(limit)).map((e) => e.id))];
      if (ids.length === 0) return [];
      // By `_id`, one read each.
      const docs = await findByIds(orgs, ids, { projection: { deleted: 1 } });
      const live = docs.filter((d) => !d.deleted).map((d) => d._id);
      // An organization purged since: its versions are forgotten.
      await outbox.forget(ids.filter((id) => !docs.some((d) => d._id === id)));
      const newest = await newestOf(live);
      return live.map((orgId) => current(orgId, newest.get(orgId)));
    },

    async markSpamSettingsPublished(orgId, version) {
      await outbox.markPublished(orgId, version);
      // Published while a purge went by: leave no mark of an organization that is gone.
      if (!(await isLive(orgId))) await outbox.purge(orgId);
    },

    async purge(scope) {
      await versions.deleteMany({ orgId: scope.orgId }); // index org_version (by its prefix)
      await outbox.purge(scope.orgId);
    },
    async close() {},
  };
}
