import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * The tombstones of deleted submissions (erased, expired or deleted through the API), read by submission id by the
 * consumers of `ingest.submission` that are behind, and purged with their organization (`gone_submissions_org`).
 */
export const goneSubmissions: SqliteMigration = {
  version: 5,
  name: 'create gone submissions',
  up: (db) =>
    db.exec(`
CREATE TABLE IF NOT EXISTS gone_submissions (
  submission_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, gone_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS gone_submissions_org ON gone_submissions (org_id);
`),
};
