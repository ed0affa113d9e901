import type { SqliteDb } from '@formgate/store/sqlite';
import type { OutcomeOutbox } from '../outcome-outbox.ts';
import { type SqliteWrite, toDeliveries } from './deliveries-schema.ts';

/** `OutcomeOutbox` on SQLite: the publication marks of the deliveries table. */
export function createSqliteOutcomeOutbox(db: SqliteDb, write: SqliteWrite): OutcomeOutbox {
  const s = {
    unpublished: db.prepare(
      // deliveries_unpublished, deliveries_deferral_unpublished
      'SELECT * FROM deliveries WHERE (event_pending = 1 OR deferral_pending = 1) AND updated_at < ? LIMIT ?',
    ),
    published: db.prepare('UPDATE deliveries SET event_pending = 0 WHERE id = ?'),
    deferralPublished: db.prepare('UPDATE deliveries SET deferral_pending = 0 WHERE id = ?'),
    pendingOfSubmission: db
      .prepare(
        // deliveries_submission, then first_attempt_batches by key
        `SELECT count(*) FROM deliveries d WHERE d.submission_id = ? AND d.org_id = ?
           AND (d.event_pending = 1 OR d.deferral_pending = 1
             OR (d.batch_id IS NOT NULL AND EXISTS (SELECT 1 FROM first_attempt_batches b WHERE b.id = d.batch_id)))`,
      )
      .pluck(),
  };
  return {
    listUnpublished: async (limit, before) => toDeliveries(s.unpublished.all(before, limit)),
    markPublished: (ids) =>
      write(() => {
        for (const id of ids) s.published.run(id);
      }),
    markDeferralPublished: (ids) =>
      write(() => {
        for (const id of ids) s.deferralPublished.run(id);
      }),
    countPending: async ({ orgId }, submissionId) => s.pendingOfSubmission.get(submissionId, orgId) as number,
  };
}
