import type { SqliteMigration } from '@formgate/store/sqlite';

/** Billing's first shape: the usage meters, the held ledgers, the storage ledger, subscriptions and the tombstones. */
export const ledgers: SqliteMigration = {
  version: 1,
  name: 'create usage, held, storage and subscription ledgers',
  up: (db) =>
    db.exec(`
CREATE TABLE usage_entries (submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, period TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE usage_counters (
  org_id TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (org_id, period)
) WITHOUT ROWID;
CREATE TABLE emails_usage_entries (
  submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, period TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE emails_usage_counters (
  org_id TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, PRIMARY KEY (org_id, period)
) WITHOUT ROWID;
CREATE TABLE held_submissions (submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, held INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX held_by_org ON held_submissions (org_id) WHERE held = 1;
CREATE TABLE deferred_emails (submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, held INTEGER NOT NULL) WITHOUT ROWID;
CREATE INDEX deferred_emails_by_org ON deferred_emails (org_id) WHERE held = 1;
CREATE TABLE stored_files (
  submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, form_id TEXT, bytes INTEGER NOT NULL, freed INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX stored_files_by_org ON stored_files (org_id) WHERE freed = 0;
CREATE INDEX stored_files_by_form ON stored_files (form_id) WHERE freed = 0;
CREATE TABLE freed_forms (form_id TEXT PRIMARY KEY, org_id TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE subscriptions (
  org_id TEXT PRIMARY KEY, event_id TEXT NOT NULL, changed_at TEXT NOT NULL, state TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE subscription_events (event_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE purged_orgs (org_id TEXT PRIMARY KEY) WITHOUT ROWID;
`),
};
