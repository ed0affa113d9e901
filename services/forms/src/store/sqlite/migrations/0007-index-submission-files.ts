import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * The stray sweep (issue 33) asks which blob keys are files of a stored submission: `submission_files` answers by
 * key. The projection adds a row per file; a document whose files are emptied (a deletion's tombstone, a no-store
 * drop) or a deleted row loses them by trigger. Filled from the submissions already stored.
 */
export const indexSubmissionFiles: SqliteMigration = {
  version: 7,
  name: 'index the blob keys of stored submissions',
  up: (db) =>
    db.exec(`
CREATE TABLE submission_files (blob_key TEXT PRIMARY KEY, submission_id TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX submission_files_by_submission ON submission_files (submission_id);
INSERT OR IGNORE INTO submission_files (blob_key, submission_id)
  SELECT json_extract(f.value, '$.blobKey'), s.id FROM submissions s, json_each(s.doc, '$.files') f WHERE s.deleted = 0;
CREATE TRIGGER submission_files_emptied AFTER UPDATE OF doc ON submissions
  WHEN json_array_length(new.doc, '$.files') = 0 BEGIN
  DELETE FROM submission_files WHERE submission_id = new.id;
END;
CREATE TRIGGER submission_files_delete AFTER DELETE ON submissions BEGIN
  DELETE FROM submission_files WHERE submission_id = old.id;
END;
`),
};
