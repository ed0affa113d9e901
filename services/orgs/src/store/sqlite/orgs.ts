import type { SqliteDb } from '@formgate/store/sqlite';
import type { OrgsStore } from '../orgs-store.ts';
import type { OrgSettingsValues } from '../records.ts';

interface OrgRow {
  org_id: string;
  name: string;
  slug: string;
  deleted: number;
  submission_notification_email: string | null;
  email_management: number;
}

const toSettings = (row: OrgRow): OrgSettingsValues => ({
  submission_notification_email: row.submission_notification_email,
  email_management: row.email_management === 1,
});

/** `OrgsStore` on SQLite (`organizations`, migration 1): a settings change is one transaction. */
export function createSqliteOrgsStore(db: SqliteDb): OrgsStore {
  const q = {
    insertOrg: db.prepare(
      `INSERT OR IGNORE INTO organizations (org_id, name, slug, submission_notification_email, email_management)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    renameOrg: db.prepare('UPDATE organizations SET name = ?, slug = ? WHERE org_id = ?'),
    getOrg: db.prepare('SELECT * FROM organizations WHERE org_id = ?'),
    setEmail: db.prepare('UPDATE organizations SET submission_notification_email = ? WHERE org_id = ?'),
    setEmailManagement: db.prepare('UPDATE organizations SET email_management = ? WHERE org_id = ?'),
    markDeleted: db.prepare('UPDATE organizations SET deleted = 1 WHERE org_id = ?'),
    purgeOrg: db.prepare('DELETE FROM organizations WHERE org_id = ?'),
  };
  const getOrg = (orgId: string) => q.getOrg.get(orgId) as OrgRow | undefined;
  const liveSettings = (orgId: string) => {
    const row = getOrg(orgId);
    return row && row.deleted === 0 ? toSettings(row) : null;
  };

  const updateSettings = db.transaction((orgId: string, patch: Partial<OrgSettingsValues>) => {
    if (!liveSettings(orgId)) return null;
    if (patch.submission_notification_email !== undefined) {
      q.setEmail.run(patch.submission_notification_email, orgId);
    }
    if (patch.email_management !== undefined) q.setEmailManagement.run(patch.email_management ? 1 : 0, orgId);
    return liveSettings(orgId);
  });

  return {
    async createOrganization(scope, { name, slug }, settings) {
      const { submission_notification_email: email, email_management } = settings;
      q.insertOrg.run(scope.orgId, name, slug, email, email_management ? 1 : 0);
    },
    async updateOrganization(scope, { name, slug }) {
      q.renameOrg.run(name, slug, scope.orgId);
    },
    async getOrganization(scope) {
      const row = getOrg(scope.orgId);
      return row ? { orgId: row.org_id, name: row.name, slug: row.slug, deleted: row.deleted === 1 } : null;
    },
    getSettings: async (scope) => liveSettings(scope.orgId),
    updateSettings: async (scope, patch) => updateSettings(scope.orgId, patch),
    beginPurge: async (scope) => void q.markDeleted.run(scope.orgId),
    purge: async (scope) => void q.purgeOrg.run(scope.orgId),
    async close() {},
  };
}
