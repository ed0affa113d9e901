import type { SqliteDb } from '@formgate/store/sqlite';
import type { AuditEntry, OrgSettingsValues, OrgSpamSettings, OrgsStore } from './orgs-store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS organizations (
  org_id TEXT PRIMARY KEY, name TEXT NOT NULL, slug TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
  submission_notification_email TEXT, email_management INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_log (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, type TEXT NOT NULL, actor TEXT, occurred_at TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_log_newest ON audit_log (org_id, occurred_at DESC, id DESC);
`;

interface OrgRow {
  org_id: string;
  name: string;
  slug: string;
  deleted: number;
  submission_notification_email: string | null;
  email_management: number;
  spam: string | null;
  spam_version: number;
}

interface AuditRow {
  id: string;
  type: string;
  actor: string | null;
  occurred_at: string;
  data: string;
}

const toSettings = (row: OrgRow): OrgSettingsValues => ({
  submission_notification_email: row.submission_notification_email,
  email_management: row.email_management === 1,
});

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  type: row.type,
  actor: row.actor === null ? null : (JSON.parse(row.actor) as AuditEntry['actor']),
  occurredAt: row.occurred_at,
  data: JSON.parse(row.data) as Record<string, string>,
});

// Spam defaults (issue 14): the settings, their version, and the version published (the outbox marker).
const SPAM_COLUMNS = `
ALTER TABLE organizations ADD COLUMN spam TEXT;
ALTER TABLE organizations ADD COLUMN spam_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE organizations ADD COLUMN spam_published INTEGER NOT NULL DEFAULT 0;
`;

const toSpam = (row: OrgRow): OrgSpamSettings => ({
  orgId: row.org_id,
  spam: row.spam === null ? null : JSON.parse(row.spam),
  version: row.spam_version,
});

/** `OrgsStore` on SQLite: a settings change and a purge are each one transaction. */
export function createSqliteOrgsStore(db: SqliteDb): OrgsStore {
  db.exec(SCHEMA);
  const hasSpam = db.prepare(`SELECT 1 FROM pragma_table_info('organizations') WHERE name = 'spam'`).get();
  if (!hasSpam) db.transaction(() => db.exec(SPAM_COLUMNS))();
  const q = {
    insertOrg: db.prepare(
      `INSERT OR IGNORE INTO organizations (org_id, name, slug, submission_notification_email, email_management)
       VALUES (?, ?, ?, ?, ?)`,
    ),
    renameOrg: db.prepare('UPDATE organizations SET name = ?, slug = ? WHERE org_id = ?'),
    getOrg: db.prepare('SELECT * FROM organizations WHERE org_id = ?'),
    setEmail: db.prepare('UPDATE organizations SET submission_notification_email = ? WHERE org_id = ?'),
    setEmailManagement: db.prepare('UPDATE organizations SET email_management = ? WHERE org_id = ?'),
    insertAudit: db.prepare(
      'INSERT OR IGNORE INTO audit_log (id, org_id, type, actor, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    firstPage: db.prepare('SELECT * FROM audit_log WHERE org_id = ? ORDER BY occurred_at DESC, id DESC LIMIT ?'),
    nextPage: db.prepare(
      `SELECT * FROM audit_log WHERE org_id = ? AND (occurred_at < ? OR (occurred_at = ? AND id < ?))
       ORDER BY occurred_at DESC, id DESC LIMIT ?`,
    ),
    purgeAudit: db.prepare('DELETE FROM audit_log WHERE org_id = ?'),
    purgeOrg: db.prepare('DELETE FROM organizations WHERE org_id = ?'),
    setSpam: db.prepare(
      `UPDATE organizations SET spam = ?, spam_version = spam_version + 1
       WHERE org_id = ? AND deleted = 0 AND spam_version = ?`,
    ),
    unpublishedSpam: db.prepare(
      'SELECT * FROM organizations WHERE spam_version > spam_published AND deleted = 0 ORDER BY org_id LIMIT ?',
    ),
    spamPublished: db.prepare('UPDATE organizations SET spam_published = MAX(spam_published, ?) WHERE org_id = ?'),
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
  const purge = db.transaction((orgId: string) => {
    q.purgeAudit.run(orgId);
    q.purgeOrg.run(orgId);
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
    async appendAudit(scope, e) {
      const actor = e.actor === null ? null : JSON.stringify(e.actor);
      const { changes } = q.insertAudit.run(e.id, scope.orgId, e.type, actor, e.occurredAt, JSON.stringify(e.data));
      return changes === 1;
    },
    async listAudit(scope, { limit, after }) {
      const rows = after
        ? q.nextPage.all(scope.orgId, after.occurredAt, after.occurredAt, after.id, limit)
        : q.firstPage.all(scope.orgId, limit);
      return (rows as AuditRow[]).map(toEntry);
    },
    async getSpamSettings(scope) {
      const row = getOrg(scope.orgId);
      return row && row.deleted === 0 ? toSpam(row) : null;
    },
    async replaceSpamSettings(scope, spam, expectedVersion) {
      const json = spam === null ? null : JSON.stringify(spam);
      return q.setSpam.run(json, scope.orgId, expectedVersion).changes === 1;
    },
    async listUnpublishedSpamSettings(limit) {
      return (q.unpublishedSpam.all(limit) as OrgRow[]).map(toSpam);
    },
    async markSpamSettingsPublished(orgId, version) {
      q.spamPublished.run(version, orgId);
    },
    purge: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
