import type { SqliteMigration } from '@formgate/store/sqlite';

/** The forms view, submission copies, deliveries with their attempts and deferrals, and first-attempt batches. */
export const deliveries: SqliteMigration = {
  version: 1,
  name: 'create deliveries, attempts, batches and views',
  up: (db) =>
    db.exec(`
CREATE TABLE IF NOT EXISTS forms_view (
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, doc TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS submissions (id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL, form_id TEXT NOT NULL, submission_id TEXT NOT NULL,
  channel TEXT NOT NULL, purpose TEXT NOT NULL, target TEXT NOT NULL, target_id TEXT,
  status TEXT NOT NULL, attempts INTEGER NOT NULL, last_claimed INTEGER NOT NULL,
  last_response TEXT, message_id TEXT, next_attempt_at TEXT, resend_of TEXT, webhook_event TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  event_pending INTEGER NOT NULL DEFAULT 0,
  deferred_at TEXT, deferral_pending INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deliveries_submission ON deliveries (submission_id, created_at);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_form_status ON deliveries (form_id, status, created_at);
CREATE INDEX IF NOT EXISTS deliveries_form_target ON deliveries (form_id, purpose, target, created_at);
CREATE INDEX IF NOT EXISTS deliveries_target ON deliveries (target_id, created_at) WHERE target_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_unpublished ON deliveries (event_pending) WHERE event_pending = 1;
CREATE INDEX IF NOT EXISTS deliveries_deferred ON deliveries (org_id, deferred_at) WHERE deferred_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_deferral_unpublished ON deliveries (deferral_pending) WHERE deferral_pending = 1;
CREATE TABLE IF NOT EXISTS delivery_attempts (
  id TEXT PRIMARY KEY, delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, started_at TEXT NOT NULL, outcome TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);
CREATE TABLE IF NOT EXISTS first_attempt_batches (
  id TEXT PRIMARY KEY, delivery_ids TEXT NOT NULL, started_at TEXT NOT NULL, lease_until TEXT NOT NULL
) WITHOUT ROWID;
`),
};
