import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * Retention (issue 31). `org_retention` keeps each organization's default (days; a missing row or null: none).
 * `submissions_live_by_time` finds a form's oldest live submissions without walking the tombstones the retention
 * leaves behind it (`retention.ts`).
 */
export const keepRetention: SqliteMigration = {
  version: 6,
  name: 'keep retention defaults and index live submissions by time',
  up: (db) =>
    db.exec(`
CREATE TABLE org_retention (org_id TEXT PRIMARY KEY, days INTEGER) WITHOUT ROWID;
CREATE INDEX submissions_live_by_time ON submissions (form_id, created_at, id) WHERE deleted = 0;
`),
};
