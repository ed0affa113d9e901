import type { SpamSettingsPatch } from '@formgate/contracts';
import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import type { AuditEntry, OrgSettingsValues, OrgSpamSettings, OrgsStore } from './orgs-store.ts';

interface OrgDoc {
  _id: string;
  name: string;
  slug: string;
  deleted: boolean;
  settings: OrgSettingsValues;
  /** Spam defaults (issue 14), their version (absent: 0), and whether that version awaits publication. */
  spam?: SpamSettingsPatch | null;
  spamVersion?: number;
  spamPending?: boolean;
}

interface AuditDoc extends Omit<AuditEntry, 'id'> {
  _id: string;
  orgId: string;
}

const AUDIT_PROJECTION = { _id: 1, type: 1, actor: 1, occurredAt: 1, data: 1 } as const;
const NEWEST_FIRST = { occurredAt: -1, _id: -1 } as const;

const toEntry = ({ _id, type, actor, occurredAt, data }: AuditDoc): AuditEntry => ({
  id: _id,
  type,
  actor: actor ? { userId: actor.userId, email: actor.email } : null,
  occurredAt,
  data,
});

const liveSettings = (doc: OrgDoc | null): OrgSettingsValues | null =>
  doc && !doc.deleted
    ? {
        submission_notification_email: doc.settings.submission_notification_email,
        email_management: doc.settings.email_management,
      }
    : null;

/**
 * `OrgsStore` on MongoDB 7+ or FerretDB 1.24 (no transactions). An organization is one document (record and
 * settings), so a settings change is one atomic update. A purge goes in steps that can each be repeated: mark
 * the organization deleted (reads stop seeing it), delete its audit log, then delete the document; a purge cut
 * short is finished by the redelivered event.
 * Organizations are read by a bare `{_id}` filter, the only one FerretDB's SQLite backend does not scan for.
 */
export async function createMongoOrgsStore(conn: MongoConnection): Promise<OrgsStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoOrgsStore: the connection is not open');
  const orgs = db.collection<OrgDoc>('organizations');
  const audit = db.collection<AuditDoc>('audit_log');
  await audit.createIndex({ orgId: 1, occurredAt: -1, _id: -1 }, { name: 'org_newest' });
  await orgs.createIndex({ spamPending: 1 }, { name: 'spam_pending', sparse: true });
  const toSpam = (doc: OrgDoc): OrgSpamSettings => ({
    orgId: doc._id,
    spam: doc.spam ?? null,
    version: doc.spamVersion ?? 0,
  });

  const insertIgnoringDuplicate = async (insert: () => Promise<unknown>): Promise<boolean> => {
    try {
      await insert();
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  };

  return {
    async createOrganization(scope, { name, slug }, settings) {
      const doc = { _id: scope.orgId, name, slug, deleted: false, settings: { ...settings } };
      await insertIgnoringDuplicate(() => orgs.insertOne(doc));
    },
    async updateOrganization(scope, { name, slug }) {
      await orgs.updateOne({ _id: scope.orgId }, { $set: { name, slug } });
    },
    async getOrganization(scope) {
      const doc = await orgs.findOne({ _id: scope.orgId });
      return doc ? { orgId: doc._id, name: doc.name, slug: doc.slug, deleted: doc.deleted } : null;
    },
    getSettings: async (scope) => liveSettings(await orgs.findOne({ _id: scope.orgId })),
    async updateSettings(scope, patch) {
      const $set: Record<string, string | boolean | null> = {};
      if (patch.submission_notification_email !== undefined) {
        $set['settings.submission_notification_email'] = patch.submission_notification_email;
      }
      if (patch.email_management !== undefined) $set['settings.email_management'] = patch.email_management;
      if (Object.keys($set).length === 0) return liveSettings(await orgs.findOne({ _id: scope.orgId }));
      return liveSettings(await orgs.findOneAndUpdate({ _id: scope.orgId }, { $set }, { returnDocument: 'after' }));
    },
    appendAudit: (scope, { id, ...entry }) =>
      insertIgnoringDuplicate(() => audit.insertOne({ _id: id, orgId: scope.orgId, ...entry })),
    async listAudit(scope, { limit, after }) {
      if (limit <= 0) return [];
      const keyset = after
        ? { $or: [{ occurredAt: { $lt: after.occurredAt } }, { occurredAt: after.occurredAt, _id: { $lt: after.id } }] }
        : {};
      const docs = await audit
        .find({ orgId: scope.orgId, ...keyset }, { projection: AUDIT_PROJECTION })
        .sort(NEWEST_FIRST)
        .limit(limit)
        .toArray();
      return docs.map(toEntry);
    },
    async getSpamSettings(scope) {
      const doc = await orgs.findOne({ _id: scope.orgId });
      return doc && !doc.deleted ? toSpam(doc) : null;
    },
    async replaceSpamSettings(scope, spam, expectedVersion) {
      // FerretDB 1.24 runs this as a read then a write: two PATCHes of one organization at the same instant may
      // both apply (the last one wins, each published); the version still only grows.
      const version = expectedVersion === 0 ? { $in: [0, null] } : expectedVersion;
      const res = await orgs.updateOne(
        { _id: scope.orgId, deleted: false, spamVersion: version as number },
        { $set: { spam, spamVersion: expectedVersion + 1, spamPending: true } },
      );
      return res.matchedCount === 1;
    },
    async listUnpublishedSpamSettings(limit) {
      if (limit <= 0) return [];
      const docs = await orgs.find({ spamPending: true }).limit(limit).toArray();
      return docs.filter((d) => !d.deleted).map(toSpam);
    },
    async markSpamSettingsPublished(orgId, version) {
      await orgs.updateOne({ _id: orgId, spamVersion: version }, { $set: { spamPending: false } });
    },
    async purge(scope) {
      await orgs.updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
      await audit.deleteMany({ orgId: scope.orgId });
      await orgs.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
