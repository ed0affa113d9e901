import { createGroupCommit, type SqliteDb } from '@formgate/store/sqlite';
import { type Delivery, isFinal } from '../records.ts';

export interface DeliveryRow {
  id: string;
  org_id: string;
  form_id: string;
  submission_id: string;
  channel: Delivery['channel'];
  purpose: string;
  target: string;
  target_id: string | null;
  status: Delivery['status'];
  attempts: number;
  last_claimed: number;
  last_response: string | null;
  message_id: string | null;
  next_attempt_at: string | null;
  resend_of: string | null;
  created_at: string;
  updated_at: string;
  webhook_event: string | null;
  deferred_at: string | null;
}

export const NOT_FINAL = `status NOT IN ('succeeded', 'failed')`;

export const toDelivery = (r: DeliveryRow): Delivery => ({
  id: r.id,
  orgId: r.org_id,
  formId: r.form_id,
  submissionId: r.submission_id,
  channel: r.channel,
  purpose: r.purpose,
  target: r.target,
  targetId: r.target_id,
  // A deferral written late over a final delivery never hides its outcome.
  status: r.deferred_at !== null && !isFinal(r.status) ? 'deferred' : r.status,
  attempts: r.attempts,
  lastClaimed: r.last_claimed,
  lastResponse: r.last_response ? JSON.parse(r.last_response) : null,
  messageId: r.message_id,
  nextAttemptAt: r.next_attempt_at,
  resendOf: r.resend_of,
  ...(r.webhook_event ? { webhookEvent: JSON.parse(r.webhook_event) } : {}),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toDeliveries = (rows: unknown[]) => (rows as DeliveryRow[]).map(toDelivery);

/** Runs one write inside the group commit of `createSqliteWrites`; resolves after its transaction committed. */
export type SqliteWrite = <R>(op: () => R) => Promise<R>;

/**
 * The one group commit of the delivery pipeline's writes (claims, outcomes, deferrals, publication marks, batches):
 * the writes made during one event-loop turn share a transaction, so the attempts in flight cost one fsync, not
 * one each. Each write runs in its own savepoint: one that throws is undone alone and its caller alone is rejected.
 */
export function createSqliteWrites(db: SqliteDb): SqliteWrite {
  type Written = { ok: true; value: unknown } | { ok: false; error: unknown };
  const savepoint = db.transaction((op: () => unknown) => op());
  const writes = createGroupCommit<() => unknown, Written>(db, (ops) =>
    ops.map((op): Written => {
      try {
        return { ok: true, value: savepoint(op) };
      } catch (error) {
        return { ok: false, error };
      }
    }),
  );
  return async <R>(op: () => R): Promise<R> => {
    const done = await writes.submit(op);
    if (!done.ok) throw done.error;
    return done.value as R;
  };
}
