import type { SqliteDb } from '@formgate/store/sqlite';
import type { DeliveryLog } from '../delivery-log.ts';
import {
  type AttemptOutcome,
  type AttemptRecord,
  attemptKey,
  type Delivery,
  ERASED,
  type FirstAttemptBatch,
  isFinal,
  type OpenBatch,
} from '../records.ts';
import { type DeliveryRow, type SqliteWrite, toDeliveries, toDelivery } from './deliveries-schema.ts';

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: string;
  outcome: string | null;
}
interface BatchRow {
  id: string;
  delivery_ids: string;
  started_at: string;
  lease_until: string;
}

/** The deliveries an erasure redacts: the submission's, but those sending `submission.erased`. */
const REDACTED = `submission_id = @submissionId AND org_id = @orgId
  AND (webhook_event IS NULL OR json_extract(webhook_event, '$.type') <> 'submission.erased')`;

function statements(db: SqliteDb) {
  return {
    insert: db.prepare(
      `INSERT OR IGNORE INTO deliveries (id, org_id, form_id, submission_id, channel, purpose, target, target_id,
         status, attempts, last_claimed, last_response, message_id, next_attempt_at, resend_of, created_at, updated_at,
         webhook_event, batch_id)
       VALUES (@id, @orgId, @formId, @submissionId, @channel, @purpose, @target, @targetId, @status, @attempts,
         @lastClaimed, NULL, @messageId, @nextAttemptAt, @resendOf, @createdAt, @updatedAt, @webhookEvent, @batchId)`,
    ),
    byId: db.prepare('SELECT * FROM deliveries WHERE id = ?'),
    byOrgAndId: db.prepare('SELECT * FROM deliveries WHERE id = ? AND org_id = ?'),
    bySubmission: db.prepare(
      'SELECT * FROM deliveries WHERE submission_id = ? AND org_id = ? ORDER BY created_at, id', // deliveries_submission
    ),
    byTarget: db.prepare(
      // deliveries_target
      'SELECT * FROM deliveries WHERE target_id = ? AND org_id = ? ORDER BY created_at DESC, id DESC LIMIT ?',
    ),
    failed: db.prepare(
      // deliveries_form_status
      `SELECT * FROM deliveries WHERE form_id = ? AND status = 'failed' AND created_at >= ? AND created_at < ?
         AND org_id = ? ORDER BY created_at, id LIMIT ?`,
    ),
    countForm: db
      .prepare('SELECT count(*) FROM deliveries WHERE form_id = ? AND purpose = ? AND created_at >= ?')
      .pluck(),
    countTarget: db
      .prepare('SELECT count(*) FROM deliveries WHERE form_id = ? AND purpose = ? AND target = ? AND created_at >= ?')
      .pluck(),
    due: db.prepare(
      'SELECT * FROM deliveries WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?',
    ),
    claim: db.prepare(
      'INSERT OR IGNORE INTO delivery_attempts (id, delivery_id, attempt, started_at) VALUES (?, ?, ?, ?)',
    ),
    attempt: db.prepare('SELECT * FROM delivery_attempts WHERE id = ?'),
    attempts: db.prepare('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt'),
    afterClaim: db.prepare(
      `UPDATE deliveries SET last_claimed = max(last_claimed, ?), next_attempt_at = ?, updated_at = ?, deferred_at = NULL,
         deferral_pending = 0 WHERE id = ?`,
    ),
    outcomeOfAttempt: db.prepare('UPDATE delivery_attempts SET outcome = ? WHERE id = ?'),
    outcomeOfDelivery: db.prepare(
      `UPDATE deliveries SET status = @status, attempts = @attempt, last_claimed = max(last_claimed, @attempt),
         last_response = @response, message_id = coalesce(@messageId, message_id), next_attempt_at = @nextAttemptAt,
         updated_at = @at, event_pending = @eventPending, deferred_at = NULL, deferral_pending = 0
       WHERE id = @id AND attempts < @attempt`,
    ),
    openBatch: db.prepare(
      'INSERT INTO first_attempt_batches (id, delivery_ids, started_at, lease_until) VALUES (?, ?, ?, ?)',
    ),
    openBatches: db.prepare('SELECT * FROM first_attempt_batches WHERE lease_until < ? LIMIT ?'),
    closeBatch: db.prepare('DELETE FROM first_attempt_batches WHERE id = ?'),
    redactDeliveries: db.prepare(
      // deliveries_submission
      `UPDATE deliveries SET target = CASE WHEN channel = 'email' THEN @erased ELSE target END,
         last_response = CASE WHEN last_response IS NULL THEN NULL ELSE json_set(last_response, '$.text', @erased) END
       WHERE ${REDACTED}`,
    ),
    redactAttempts: db.prepare(
      // deliveries_submission, then delivery_attempts_delivery
      `UPDATE delivery_attempts SET outcome = json_set(outcome, '$.response.text', @erased)
       WHERE delivery_id IN (SELECT id FROM deliveries WHERE ${REDACTED})
         AND json_type(outcome, '$.response') = 'object'`,
    ),
  };
}

/** The log's reads and transactions over its statements. */
function transactions(db: SqliteDb, s: ReturnType<typeof statements>) {
  const read = (id: string) => {
    const row = s.byId.get(id) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  };
  /**
   * Inserts the delivery unless its id is there (claimed by `batchId`, if given); answers it as stored and whether
   * this call inserted it.
   */
  const insertOrFind = (d: Delivery, batchId: string | null = null) => {
    const webhookEvent = d.webhookEvent ? JSON.stringify(d.webhookEvent) : null;
    const inserted = s.insert.run({ ...d, webhookEvent, batchId }).changes === 1;
    return { delivery: read(d.id) as Delivery, inserted };
  };
  const plan = db.transaction((deliveries: Delivery[]) => deliveries.map((d) => insertOrFind(d).delivery));
  const claim = db.transaction((deliveryId: string, attempt: number, startedAt: string, leaseUntil: string) => {
    const key = attemptKey(deliveryId, attempt);
    if (s.claim.run(key, deliveryId, attempt, startedAt).changes === 1) {
      s.afterClaim.run(attempt, leaseUntil, startedAt, deliveryId);
      return { claimed: true as const };
    }
    const row = s.attempt.get(key) as AttemptRow;
    return {
      claimed: false as const,
      startedAt: row.started_at,
      outcome: row.outcome ? JSON.parse(row.outcome) : null,
    };
  });
  const record = db.transaction(
    (deliveryId: string, attempt: number, outcome: AttemptOutcome, batch?: FirstAttemptBatch) => {
      s.outcomeOfAttempt.run(JSON.stringify(outcome), attemptKey(deliveryId, attempt));
      const final = isFinal(outcome.status);
      // A batch's success is published by closing the batch: no mark of its own.
      const batchPublishes = batch !== undefined && outcome.status === 'succeeded';
      s.outcomeOfDelivery.run({
        id: deliveryId,
        attempt,
        status: outcome.status,
        response: outcome.response ? JSON.stringify(outcome.response) : null,
        messageId: outcome.messageId,
        nextAttemptAt: final ? null : outcome.nextAttemptAt,
        at: outcome.at,
        eventPending: final && !batchPublishes ? 1 : 0,
      });
      return read(deliveryId);
    },
  );
  /** The batch record, then each new delivery planned with attempt 1 claimed (its attempt record written). */
  const claimFirst = db.transaction((batch: FirstAttemptBatch, deliveries: Delivery[]) => {
    s.openBatch.run(batch.id, JSON.stringify(deliveries.map((d) => d.id)), batch.startedAt, batch.leaseUntil);
    return deliveries.map((d) => {
      const first = { ...d, lastClaimed: 1, nextAttemptAt: null, updatedAt: batch.startedAt };
      const { delivery, inserted } = insertOrFind(first, batch.id);
      if (inserted) s.claim.run(attemptKey(d.id, 1), d.id, 1, batch.startedAt);
      return { delivery, claimed: inserted };
    });
  });
  const redact = db.transaction((orgId: string, submissionId: string) => {
    const names = { orgId, submissionId, erased: ERASED };
    s.redactAttempts.run(names);
    s.redactDeliveries.run(names);
  });
  const toAttempt = (r: AttemptRow): AttemptRecord => ({
    deliveryId: r.delivery_id,
    attempt: r.attempt,
    startedAt: r.started_at,
    outcome: r.outcome ? JSON.parse(r.outcome) : null,
  });
  const toOpenBatch = (r: BatchRow): OpenBatch => ({
    batch: { id: r.id, startedAt: r.started_at, leaseUntil: r.lease_until },
    deliveries: (JSON.parse(r.delivery_ids) as string[]).map(read).filter((d): d is Delivery => d !== null),
  });

  return { read, plan, claim, record, claimFirst, redact, toAttempt, toOpenBatch };
}

/** `DeliveryLog` on SQLite: each change one statement or one transaction, inside the shared group commit. */
export function createSqliteDeliveryLog(db: SqliteDb, write: SqliteWrite): DeliveryLog {
  const s = statements(db);
  const { plan, claim, record, claimFirst, redact, toAttempt, toOpenBatch } = transactions(db, s);
  return {
    planDeliveries: async (deliveries) => plan(deliveries),
    async getDelivery({ orgId }, id) {
      const row = s.byOrgAndId.get(id, orgId) as DeliveryRow | undefined;
      return row ? toDelivery(row) : null;
    },
    listBySubmission: async ({ orgId }, submissionId) => toDeliveries(s.bySubmission.all(submissionId, orgId)),
    listByTarget: async ({ orgId }, targetId, limit) => toDeliveries(s.byTarget.all(targetId, orgId, limit)),
    listFailed: async ({ orgId }, formId, range, limit) =>
      toDeliveries(s.failed.all(formId, range.from, range.to, orgId, limit)),
    countSince: async (q) =>
      (q.target === undefined
        ? s.countForm.get(q.formId, q.purpose, q.since)
        : s.countTarget.get(q.formId, q.purpose, q.target, q.since)) as number,
    async listAttempts({ orgId }, deliveryId) {
      if (!s.byOrgAndId.get(deliveryId, orgId)) return [];
      return (s.attempts.all(deliveryId) as AttemptRow[]).map(toAttempt);
    },
    listDue: async (now, limit) => toDeliveries(s.due.all(now, limit)),
    claimAttempt: (deliveryId, attempt, at) => write(() => claim(deliveryId, attempt, at.startedAt, at.leaseUntil)),
    recordOutcome: (deliveryId, attempt, outcome) => write(() => record(deliveryId, attempt, outcome)),
    recordFirstAttempt: (batch, { delivery, outcome }) =>
      write(() => record(delivery.id, 1, outcome, batch) ?? delivery),
    claimFirstAttempts: (batch, deliveries) =>
      deliveries.length === 0 ? Promise.resolve([]) : write(() => claimFirst(batch, deliveries)),
    listOpenBatches: async (before, limit) => (s.openBatches.all(before, limit) as BatchRow[]).map(toOpenBatch),
    async closeBatch(batchId) {
      await write(() => s.closeBatch.run(batchId));
    },
    async redactSubmission({ orgId }, submissionId) {
      await write(() => redact(orgId, submissionId));
    },
  };
}
