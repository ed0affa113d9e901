import type { SqliteMigration } from '@formgate/store/sqlite';

/**
 * Erasure by submitter (issue 31). `submission_addresses` holds the keyed hash of each email address a submission
 * holds (`privacy/addresses.ts`), written with the submission by the read model's insert; a submission's keys go
 * when it is deleted or erased (trigger). Submissions stored before this migration have no keys: an erasure does
 * not find them (before a release, nothing is kept for them). `erasures` keeps each erasure's signed receipt, an organization's newest first, and
 * whether its audit entry was published (`audited`, the outbox of `erasure.completed`).
 */
export const indexSubmitterAddresses: SqliteMigration = {
  version: 5,
  name: 'index submitter addresses and keep erasure receipts',
  up: (db) =>
    db.exec(`
CREATE TABLE submission_addresses (
  org_id TEXT NOT NULL, address_key TEXT NOT NULL, submission_id TEXT NOT NULL,
  PRIMARY KEY (org_id, address_key, submission_id)
) WITHOUT ROWID;
CREATE INDEX submission_addresses_by_submission ON submission_addresses (submission_id);
CREATE TRIGGER submissions_addresses_forget AFTER UPDATE OF deleted ON submissions WHEN new.deleted = 1 BEGIN
  DELETE FROM submission_addresses WHERE submission_id = new.id;
END;
CREATE TRIGGER submissions_addresses_delete AFTER DELETE ON submissions BEGIN
  DELETE FROM submission_addresses WHERE submission_id = old.id;
END;
CREATE TABLE erasures (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, erased_at TEXT NOT NULL, doc TEXT NOT NULL,
  audited INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX erasures_by_org ON erasures (org_id, erased_at DESC, id DESC);
CREATE INDEX erasures_unaudited ON erasures (erased_at) WHERE audited = 0;
`),
};
