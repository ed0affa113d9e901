import type { SqliteMigration } from '@formgate/store/sqlite';

/** The forms' webhook endpoints, the service's disablings of them and the notices sent about those. */
export const webhookEndpoints: SqliteMigration = {
  version: 2,
  name: 'create webhook endpoints',
  up: (db) =>
    db.exec(`
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, form_id TEXT NOT NULL, created_at TEXT NOT NULL, doc TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_endpoints_form ON webhook_endpoints (form_id, created_at);
CREATE TABLE IF NOT EXISTS webhook_endpoint_disablings (
  key TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, reason TEXT NOT NULL, at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS webhook_endpoint_disablings_endpoint ON webhook_endpoint_disablings (endpoint_id);
CREATE TABLE IF NOT EXISTS webhook_notices (key TEXT PRIMARY KEY) WITHOUT ROWID;
`),
};
