import { insertOnce, type MongoConnection } from '@formgate/store/mongo';
import { createMongoOrgSpam, type OrgSpamLegacy } from './mongo-org-spam.ts';
import type { AuditEntry, OrgSettingsValues, OrgsStore } from './orgs-store.ts';

/**
 * An organization's identity, written only by the `orgs.lifecycle` consumer (create, rename, purge). `settings` are
 * the ones it was created with — and, for organizations of stores before `org_settings`, the ones changed since;
 * `spam`, `spamVersion` and `spamPending` are only on organizations of stores before `org_spam_versions`. Both are
 * read, never written after the insert (ADR 55).
 */
interface OrgDoc extends OrgSpamLegacy {
  name: string;
  slug: string;
  settings: OrgSettingsValues;
}

/** An organization's settings as its `PATCH`es last wrote them: written only by `updateSettings`. */
interface SettingsDoc extends OrgSettingsValues {
  _id: string;
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

const pick = (values: OrgSettingsValues): OrgSettingsValues => ({
  submission_notification_email: values.submission_notification_email,
  email_management: values.email_management,
});

/**
 * `OrgsStore` on MongoDB 7+ or FerretDB 1.24 (no transactions, and on FerretDB no atomic update: ADR 55), with one
 * writer per document:
 * - `organizations` — the identity (name, slug, the settings it was created with): the `orgs.lifecycle` consumer's.
 * - `org_settings` — the settings the `PATCH`es wrote: the first one inserts it from the organization's, the
 *   next ones set their keys. Before its first `PATCH` an organization's settings are read from `organizations`.
 * - the spam defaults and their outbox (`org_spam_versions`, `org_spam_outbox`, `org_spam_published`):
 *   `mongo-org-spam.ts`.
 * A purge goes in steps that can each be repeated: mark the organization deleted (reads stop seeing it), delete
 * its audit log, settings and spam records, then the document; a purge cut short is finished by the redelivered
 * event. A `PATCH` that wrote while a purge went by takes its write back.
 * Organizations are read by a bare `{_id}` filter, the only one FerretDB's SQLite backend does not scan for.
 */
export async function createMongoOrgsStore(
  conn: MongoConnection,
  options: { now?: () => number; reconcileMs?: number } = {},
): Promise<OrgsStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoOrgsStore: the connection is not open');
  const orgs = db.collection<OrgDoc>('organizations');
  const settingsOf = db.collection<SettingsDoc>('org_settings');
  const audit = db.collection<AuditDoc>('audit_log');
  const spam = createMongoOrgSpam(db, options);
  await audit.createIndex({ orgId: 1, occurredAt: -1, _id: -1 }, { name: 'org_newest' });
  await spam.createIndexes();

  const liveOrg = async (orgId: string) => {
    const doc = await orgs.findOne({ _id: orgId }, { projection: { deleted: 1, settings: 1 } });
    return doc && !doc.deleted ? doc : null;
  };
  const readSettings = async (org: Pick<OrgDoc, '_id' | 'settings'>) =>
    pick((await settingsOf.findOne({ _id: org._id })) ?? org.settings);

  /** Sets the keys on the organization's own settings document, first written from its legacy/initial ones. */
  async function writeSettings(org: Pick<OrgDoc, '_id' | 'settings'>, patch: Partial<OrgSettingsValues>) {
    const set = () => settingsOf.updateOne({ _id: org._id }, { $set: patch });
    if ((await set()).matchedCount === 1) return;
    const first = { _id: org._id, ...pick(org.settings), ...patch };
    // Two first PATCHes at once: the loser's insert fails, and it sets its keys on the winner's document.
    if (!(await insertOnce(settingsOf.insertOne(first)))) await set();
  }

  return {
    async createOrganization(scope, { name, slug }, settings) {
      const doc = { _id: scope.orgId, name, slug, deleted: false, settings: pick(settings) };
      await insertOnce(orgs.insertOne(doc));
    },
    async updateOrganization(scope, { name, slug }) {
      await orgs.updateOne({ _id: scope.orgId }, { $set: { name, slug } });
    },
    async getOrganization(scope) {
      const doc = await orgs.findOne({ _id: scope.orgId }, { projection: { name: 1, slug: 1, deleted: 1 } });
      return doc ? { orgId: doc._id, name: doc.name, slug: doc.slug, deleted: doc.deleted } : null;
    },
    async getSettings(scope) {
      const org = await liveOrg(scope.orgId);
      return org ? readSettings(org) : null;
    },
    async updateSettings(scope, patch) {
      const org = await liveOrg(scope.orgId);
      if (!org) return null;
      const keys: Partial<OrgSettingsValues> = {};
      if (patch.submission_notification_email !== undefined) {
        keys.submission_notification_email = patch.submission_notification_email;
      }
      if (patch.email_management !== undefined) keys.email_management = patch.email_management;
      if (Object.keys(keys).length === 0) return readSettings(org);
      await writeSettings(org, keys);
      // Written while a purge went by: leave nothing of the organization behind.
      if (!(await liveOrg(scope.orgId))) {
        await settingsOf.deleteOne({ _id: scope.orgId });
        return null;
      }
      return readSettings(org);
    },
    appendAudit: (scope, { id, ...entry }) => insertOnce(audit.insertOne({ _id: id, orgId: scope.orgId, ...entry })),
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
    getSpamSettings: (scope) => spam.getSpamSettings(scope.orgId),
    replaceSpamSettings: (scope, settings, expectedVersion) =>
      spam.replaceSpamSettings(scope.orgId, settings, expectedVersion),
    listUnpublishedSpamSettings: (limit) => spam.listUnpublishedSpamSettings(limit),
    markSpamSettingsPublished: (orgId, version) => spam.markSpamSettingsPublished(orgId, version),
    async purge(scope) {
      await orgs.updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
      await audit.deleteMany({ orgId: scope.orgId });
      await settingsOf.deleteOne({ _id: scope.orgId });
      await spam.purge(scope.orgId);
      await orgs.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
