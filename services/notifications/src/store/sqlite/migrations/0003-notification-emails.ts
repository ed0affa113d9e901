import type { SqliteMigration } from '@formgate/store/sqlite';

/** The organizations' notification addresses, the mails sent to each, and the organizations' names. */
export const notificationEmails: SqliteMigration = {
  version: 3,
  name: 'create notification emails',
  up: (db) =>
    db.exec(`
CREATE TABLE IF NOT EXISTS notification_emails (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, created_at INTEGER NOT NULL,
  verified_at INTEGER, UNIQUE (org_id, email)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notification_email_mails (
  org_id TEXT NOT NULL, email TEXT NOT NULL, window_start INTEGER NOT NULL, sent_in_window INTEGER NOT NULL,
  last_sent_at INTEGER NOT NULL, PRIMARY KEY (org_id, email)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notification_org_names (org_id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
`),
};
