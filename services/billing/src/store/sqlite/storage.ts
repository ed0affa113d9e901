import type { SqliteDb } from '@formgate/store/sqlite';
import type { FreedSubmission, StoredFiles } from '../records.ts';
import type { StorageStore } from '../storage-store.ts';

/**
 * `StorageStore` on SQLite: one row per submission with files recorded or freed (`freed` 0 or 1; a freed one keeps
 * its row as the tombstone), deleted forms in `freed_forms`, purged organizations in `purged_orgs` (shared with the
 * other ledgers).
 */
export function createSqliteStorageStore(db: SqliteDb): StorageStore {
  const isGone = db
    .prepare(
      `SELECT 1 WHERE EXISTS (SELECT 1 FROM purged_orgs WHERE org_id = ?)
         OR EXISTS (SELECT 1 FROM freed_forms WHERE form_id = ?)`,
    )
    .pluck();
  const insert = db.prepare(
    'INSERT OR IGNORE INTO stored_files (submission_id, org_id, form_id, bytes, freed) VALUES (?, ?, ?, ?, 0)',
  );
  const markFreed = db.prepare(
    `INSERT INTO stored_files (submission_id, org_id, form_id, bytes, freed) VALUES (?, ?, NULL, 0, 1)
     ON CONFLICT (submission_id) DO UPDATE SET freed = 1`,
  );
  const freeFormRows = db.prepare('UPDATE stored_files SET freed = 1 WHERE form_id = ? AND org_id = ? AND freed = 0');
  const formTombstone = db.prepare('INSERT OR IGNORE INTO freed_forms (form_id, org_id) VALUES (?, ?)');
  const sum = db.prepare('SELECT COALESCE(SUM(bytes), 0) FROM stored_files WHERE org_id = ? AND freed = 0').pluck();
  const tombstone = db.prepare('INSERT OR IGNORE INTO purged_orgs (org_id) VALUES (?)');
  const removeOrg = db.prepare('DELETE FROM stored_files WHERE org_id = ?');
  const removeForms = db.prepare('DELETE FROM freed_forms WHERE org_id = ?');

  const record = db.transaction((entries: StoredFiles[]) => {
    for (const e of entries) {
      if (e.bytes > 0 && isGone.get(e.orgId, e.formId) === undefined) insert.run(e.id, e.orgId, e.formId, e.bytes);
    }
  });
  const free = db.transaction((entries: FreedSubmission[]) => {
    for (const e of entries) markFreed.run(e.id, e.orgId);
  });
  const freeForm = db.transaction((orgId: string, formId: string) => {
    formTombstone.run(formId, orgId);
    freeFormRows.run(formId, orgId);
  });
  const purge = db.transaction((orgId: string) => {
    tombstone.run(orgId);
    removeOrg.run(orgId);
    removeForms.run(orgId);
  });

  return {
    record: async (entries) => record(entries),
    free: async (entries) => free(entries),
    freeForm: async (scope, formId) => freeForm(scope.orgId, formId),
    usedBytes: async (scope) => sum.get(scope.orgId) as number,
    purgeOrganization: async (scope) => purge(scope.orgId),
    async close() {},
  };
}
