import type { SqliteMigration } from '@formgate/store/sqlite';

/** The orgs service's first shape: organizations with their settings, the audit log, the spam defaults' versions. */
export const organizations: SqliteMigration = {
  version: 1,
  name: 'create organizations, audit_log and org_spam',
  up: (db) =>
    db.exec(`
CREATE TABLE organizations (
  org_id TEXT PRIMARY KEY, name TEXT NOT NULL, slug TEXT NOT NULL, deleted INTEGER NOT NULL DEFAULT 0,
  submission_notification_email TEXT, email_management INTEGER NOT NULL
);
CREATE TABLE audit_log (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, type TEXT NOT NULL, actor TEXT, occurred_at TEXT NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX audit_log_newest ON audit_log (org_id, occurred_at DESC, id DESC);
CREATE TABLE org_spam (
  org_id TEXT PRIMARY KEY, spam TEXT, version INTEGER NOT NULL, published INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX org_spam_unpublished ON org_spam (org_id) WHERE version > published;
`),
};
