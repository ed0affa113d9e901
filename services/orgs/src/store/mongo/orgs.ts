import { insertOnce, type MongoDb } from '@formgate/store/mongo';
import type { OrgsStore } from '../orgs-store.ts';
import type { OrgSettingsValues } from '../records.ts';

/**
 * An organization's identity, written only by the `orgs.lifecycle` consumer (create, rename, purge); `settings` are
 * the ones it was created with, never written after the insert (ADR 55).
 */
export interface OrgDoc {
  _id: string;
  name: string;
  slug: string;
  deleted: boolean;
  settings: OrgSettingsValues;
}

/** An organization's settings as its `PATCH`es last wrote them: written only by `updateSettings`. */
interface SettingsDoc extends OrgSettingsValues {
  _id: string;
}

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
 * A `PATCH` that wrote while a purge went by takes its write back. Every read and write here is by `_id`.
 */
export function createMongoOrgsStore(db: MongoDb): OrgsStore {
  const orgs = db.collection<OrgDoc>('organizations');
  const settingsOf = db.collection<SettingsDoc>('org_settings');

  const liveOrg = async (orgId: string) => {
    const doc = await orgs.findOne({ _id: orgId }, { projection: { deleted: 1, settings: 1 } });
    return doc && !doc.deleted ? doc : null;
  };
  const readSettings = async (org: Pick<OrgDoc, '_id' | 'settings'>) =>
    pick((await settingsOf.findOne({ _id: org._id })) ?? org.settings);

  /** Sets the keys on the organization's own settings document, first written from the ones it was created with. */
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
    async beginPurge(scope) {
      await orgs.updateOne({ _id: scope.orgId }, { $set: { deleted: true } });
    },
    async purge(scope) {
      await settingsOf.deleteOne({ _id: scope.orgId });
      await orgs.deleteOne({ _id: scope.orgId });
    },
    async close() {},
  };
}
