import type { DeliveryChannel } from '@formgate/contracts';
import type { SqliteDb } from '@formgate/store/sqlite';
import { mergeKinds, type SettlementKindRecord, type SubmissionSettlements } from '../submission-settlements.ts';
import type { SqliteWrite } from './deliveries-schema.ts';

interface Row {
  submission_id: string;
  kind: DeliveryChannel;
  org_id: string;
  form_id: string;
  created_at: string;
  check_at: string | null;
  settled_at: string | null;
}

const toKind = (r: Row): SettlementKindRecord => ({
  submissionId: r.submission_id,
  kind: r.kind,
  orgId: r.org_id,
  formId: r.form_id,
  createdAt: r.created_at,
  checkAt: r.check_at,
  settledAt: r.settled_at,
});

/** `SubmissionSettlements` on SQLite: a row per (submission, kind), its writes in the pipeline's group commit. */
export function createSqliteSubmissionSettlements(db: SqliteDb, write: SqliteWrite): SubmissionSettlements {
  const s = {
    insert: db.prepare(
      `INSERT OR IGNORE INTO submission_settlements (submission_id, kind, org_id, form_id, created_at, check_at)
       VALUES (@submissionId, @kind, @orgId, @formId, @now, @checkAt)`,
    ),
    // By key (its prefix).
    bySubmission: db.prepare('SELECT * FROM submission_settlements WHERE submission_id = ?'),
    due: db
      .prepare(
        // submission_settlements_due
        `SELECT submission_id FROM submission_settlements WHERE settled_at IS NULL AND check_at <= ?
         ORDER BY check_at LIMIT ?`,
      )
      .pluck(),
    postpone: db.prepare(
      'UPDATE submission_settlements SET check_at = ? WHERE submission_id = ? AND settled_at IS NULL',
    ),
    settle: db.prepare(
      `UPDATE submission_settlements SET settled_at = ?, check_at = NULL
       WHERE submission_id = ? AND settled_at IS NULL`,
    ),
  };
  const get = (submissionId: string) => mergeKinds((s.bySubmission.all(submissionId) as Row[]).map(toKind));
  return {
    recordPlanning: (submissions, kinds, at) =>
      submissions.length === 0
        ? Promise.resolve()
        : write(() => {
            for (const sub of submissions) for (const kind of kinds) s.insert.run({ ...sub, kind, ...at });
          }),
    get: async (submissionId) => get(submissionId),
    async listDue(now, limit) {
      const ids = [...new Set(s.due.all(now, limit) as string[])];
      return ids.map(get).filter((r) => r !== null);
    },
    async postpone(submissionId, checkAt) {
      await write(() => s.postpone.run(checkAt, submissionId));
    },
    async markSettled(submissionId, settledAt) {
      await write(() => s.settle.run(settledAt, submissionId));
    },
  };
}
