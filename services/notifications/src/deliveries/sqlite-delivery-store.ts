import { createGroupCommit, type SqliteDb } from '@formgate/store/sqlite';
import {
  type AttemptRecord,
  attemptKey,
  type Delivery,
  type DeliveryStore,
  type FirstAttemptBatch,
  type FirstAttemptResult,
  type FormView,
  isFinal,
  type OpenBatch,
  type StoredSubmission,
} from './delivery-store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS forms_view (
  id TEXT PRIMARY KEY, version INTEGER NOT NULL, deleted INTEGER NOT NULL DEFAULT 0, doc TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS submissions (id TEXT PRIMARY KEY, doc TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS deliveries (
  id TEXT PRIMARY KEY,
  org_id TEXT NOT NULL, form_id TEXT NOT NULL, submission_id TEXT NOT NULL,
  channel TEXT NOT NULL, purpose TEXT NOT NULL, target TEXT NOT NULL, target_id TEXT,
  status TEXT NOT NULL, attempts INTEGER NOT NULL, last_claimed INTEGER NOT NULL,
  last_response TEXT, message_id TEXT, next_attempt_at TEXT, resend_of TEXT,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL, event_pending INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS deliveries_submission ON deliveries (submission_id, created_at);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_form_status ON deliveries (form_id, status, created_at);
CREATE INDEX IF NOT EXISTS deliveries_form_target ON deliveries (form_id, purpose, target, created_at);
CREATE INDEX IF NOT EXISTS deliveries_unpublished ON deliveries (event_pending) WHERE event_pending = 1;
CREATE TABLE IF NOT EXISTS delivery_attempts (
  id TEXT PRIMARY KEY, delivery_id TEXT NOT NULL, attempt INTEGER NOT NULL, started_at TEXT NOT NULL, outcome TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS delivery_attempts_delivery ON delivery_attempts (delivery_id, attempt);
`;

// Webhook deliveries: the event each one sends, and an endpoint's recent deliveries.
const WEBHOOKS = `
ALTER TABLE deliveries ADD COLUMN webhook_event TEXT;
CREATE INDEX IF NOT EXISTS deliveries_target ON deliveries (target_id, created_at) WHERE target_id IS NOT NULL;
`;

// Emails deferred by the organization's emails quota (issue 13): when, and whether the deferral awaits publication.
const DEFERRALS = `
ALTER TABLE deliveries ADD COLUMN deferred_at TEXT;
ALTER TABLE deliveries ADD COLUMN deferral_pending INTEGER NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS deliveries_deferred ON deliveries (org_id, deferred_at) WHERE deferred_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS deliveries_deferral_unpublished ON deliveries (deferral_pending) WHERE deferral_pending = 1;
`;

// A consumer batch's first attempts (ADR 61): the batch record that leases them until their outcomes are published.
const BATCHES = `
CREATE TABLE IF NOT EXISTS first_attempt_batches (
  id TEXT PRIMARY KEY, delivery_ids TEXT NOT NULL, started_at TEXT NOT NULL, lease_until TEXT NOT NULL
) WITHOUT ROWID;
`;

const NOT_FINAL = `status NOT IN ('succeeded', 'failed')`;

interface DeliveryRow {
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

const toDelivery = (r: DeliveryRow): Delivery => ({
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

/** `DeliveryStore` on SQLite (embedded mode): one file, each change one statement or one transaction. */
export function createSqliteDeliveryStore(db: SqliteDb): DeliveryStore {
  db.exec(SCHEMA);
  db.exec(BATCHES);
  if (!db.prepare(`SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'webhook_event'`).get()) {
    db.transaction(() => db.exec(WEBHOOKS))();
  }
  if (!db.prepare(`SELECT 1 FROM pragma_table_info('deliveries') WHERE name = 'deferred_at'`).get()) {
    db.transaction(() => db.exec(DEFERRALS))();
  }
  const s = {
    upsertForm: db.prepare(
      `INSERT INTO forms_view (id, version, deleted, doc) VALUES (@id, @version, 0, @doc)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = 0, doc = excluded.doc
       WHERE excluded.version > forms_view.version`,
    ),
    deleteForm: db.prepare(
      `INSERT INTO forms_view (id, version, deleted, doc) VALUES (?, ?, 1, NULL)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, deleted = 1, doc = NULL
       WHERE excluded.version >= forms_view.version`,
    ),
    getForm: db.prepare('SELECT deleted, doc FROM forms_view WHERE id = ?'),
    saveSubmission: db.prepare('INSERT OR IGNORE INTO submissions (id, doc) VALUES (?, ?)'),
    getSubmission: db.prepare('SELECT doc FROM submissions WHERE id = ?').pluck(),
    deleteSubmission: db.prepare('DELETE FROM submissions WHERE id = ?'),
    insertDelivery: db.prepare(
      `INSERT OR IGNORE INTO deliveries (id, org_id, form_id, submission_id, channel, purpose, target, target_id,
         status, attempts, last_claimed, last_response, message_id, next_attempt_at, resend_of, created_at, updated_at,
         webhook_event)
       VALUES (@id, @orgId, @formId, @submissionId, @channel, @purpose, @target, @targetId, @status, @attempts,
         @lastClaimed, NULL, @messageId, @nextAttemptAt, @resendOf, @createdAt, @updatedAt, @webhookEvent)`,
    ),
    getDelivery: db.prepare('SELECT * FROM deliveries WHERE id = ?'),
    bySubmission: db.prepare('SELECT * FROM deliveries WHERE submission_id = ? ORDER BY created_at, id'),
    byTarget: db.prepare('SELECT * FROM deliveries WHERE target_id = ? ORDER BY created_at DESC, id DESC LIMIT ?'),
    failed: db.prepare(
      `SELECT * FROM deliveries WHERE form_id = ? AND status = 'failed' AND created_at >= ? AND created_at < ?
       ORDER BY created_at, id LIMIT ?`,
    ),
    countForm: db
      .prepare('SELECT count(*) FROM deliveries WHERE form_id = ? AND purpose = ? AND created_at >= ?')
      .pluck(),
    countTarget: db
      .prepare('SELECT count(*) FROM deliveries WHERE form_id = ? AND purpose = ? AND target = ? AND created_at >= ?')
      .pluck(),
    claim: db.prepare(
      'INSERT OR IGNORE INTO delivery_attempts (id, delivery_id, attempt, started_at) VALUES (?, ?, ?, ?)',
    ),
    getAttempt: db.prepare('SELECT * FROM delivery_attempts WHERE id = ?'),
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
    skip: db.prepare('UPDATE deliveries SET last_claimed = max(last_claimed, ?) WHERE id = ?'),
    attempts: db.prepare('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt'),
    due: db.prepare(
      'SELECT * FROM deliveries WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?',
    ),
    defer: db.prepare(
      `UPDATE deliveries SET deferred_at = @at, next_attempt_at = NULL, updated_at = @at, deferral_pending = 1
       WHERE id = @id AND last_claimed = @lastClaimed AND deferred_at IS NULL AND ${NOT_FINAL}`,
    ),
    deferred: db.prepare(
      `SELECT * FROM deliveries WHERE org_id = ? AND deferred_at IS NOT NULL AND ${NOT_FINAL}
       ORDER BY deferred_at, id LIMIT ?`,
    ),
    deferredOrgs: db
      .prepare(`SELECT DISTINCT org_id FROM deliveries WHERE deferred_at IS NOT NULL AND ${NOT_FINAL}`)
      .pluck(),
    unpublished: db.prepare(
      'SELECT * FROM deliveries WHERE (event_pending = 1 OR deferral_pending = 1) AND updated_at < ? LIMIT ?',
    ),
    published: db.prepare('UPDATE deliveries SET event_pending = 0 WHERE id = ?'),
    deferralPublished: db.prepare('UPDATE deliveries SET deferral_pending = 0 WHERE id = ?'),
    openBatch: db.prepare(
      'INSERT INTO first_attempt_batches (id, delivery_ids, started_at, lease_until) VALUES (?, ?, ?, ?)',
    ),
    openBatches: db.prepare('SELECT * FROM first_attempt_batches WHERE lease_until < ? LIMIT ?'),
    closeBatch: db.prepare('DELETE FROM first_attempt_batches WHERE id = ?'),
  };

  /** Inserts the delivery unless its id is there; answers it as stored and whether this call inserted it. */
  const insertOrFind = (d: Delivery) => {
    const inserted =
      s.insertDelivery.run({ ...d, webhookEvent: d.webhookEvent ? JSON.stringify(d.webhookEvent) : null }).changes ===
      1;
    return { delivery: toDelivery(s.getDelivery.get(d.id) as DeliveryRow), inserted };
  };
  const plan = db.transaction((deliveries: Delivery[]) => deliveries.map((d) => insertOrFind(d).delivery));
  const claim = db.transaction((deliveryId: string, attempt: number, startedAt: string, leaseUntil: string) => {
    const key = attemptKey(deliveryId, attempt);
    if (s.claim.run(key, deliveryId, attempt, startedAt).changes === 1) {
      s.afterClaim.run(attempt, leaseUntil, startedAt, deliveryId);
      return { claimed: true as const };
    }
    const row = s.getAttempt.get(key) as { started_at: string; outcome: string | null };
    return { claimed: false as const, startedAt: row.started_at, finished: row.outcome !== null };
  });
  /** `batchPublishes`: a batch's first-attempt success, whose publication is the batch's (no `event_pending`). */
  const record = db.transaction(
    (
      deliveryId: string,
      attempt: number,
      outcome: Parameters<DeliveryStore['recordOutcome']>[2],
      batchPublishes = false,
    ) => {
      s.outcomeOfAttempt.run(JSON.stringify(outcome), attemptKey(deliveryId, attempt));
      s.outcomeOfDelivery.run({
        id: deliveryId,
        attempt,
        status: outcome.status,
        response: outcome.response ? JSON.stringify(outcome.response) : null,
        messageId: outcome.messageId,
        nextAttemptAt: isFinal(outcome.status) ? null : outcome.nextAttemptAt,
        at: outcome.at,
        eventPending: isFinal(outcome.status) && !(batchPublishes && outcome.status === 'succeeded') ? 1 : 0,
      });
      const row = s.getDelivery.get(deliveryId) as DeliveryRow | undefined;
      return row ? toDelivery(row) : null;
    },
  );
  /** The batch record, then each new delivery planned with attempt 1 claimed (its attempt record written). */
  const claimFirst = db.transaction((batch: FirstAttemptBatch, deliveries: Delivery[]) => {
    s.openBatch.run(batch.id, JSON.stringify(deliveries.map((d) => d.id)), batch.startedAt, batch.leaseUntil);
    return deliveries.map((d) => {
      const { delivery, inserted } = insertOrFind({
        ...d,
        lastClaimed: 1,
        nextAttemptAt: null,
        updatedAt: batch.startedAt,
      });
      if (inserted) s.claim.run(attemptKey(d.id, 1), d.id, 1, batch.startedAt);
      return { delivery, claimed: inserted };
    });
  });
  /** Each outcome as `record` writes it; a success's publication is the batch's. */
  const recordFirst = db.transaction((results: FirstAttemptResult[]) =>
    results.map(({ delivery, outcome }) => {
      return record(delivery.id, 1, outcome, true) ?? delivery;
    }),
  );
  const saveSubmissions = db.transaction((submissions: StoredSubmission[]) => {
    for (const sub of submissions) s.saveSubmission.run(sub.submissionId, JSON.stringify(sub));
  });
  const markPublished = db.transaction((ids: string[]) => {
    for (const id of ids) s.published.run(id);
  });
  const markDeferralPublished = db.transaction((ids: string[]) => {
    for (const id of ids) s.deferralPublished.run(id);
  });
  const defer = db.transaction((id: string, lastClaimed: number, at: string) => {
    s.defer.run({ id, lastClaimed, at });
    const row = s.getDelivery.get(id) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  });

  /**
   * The attempts' writes (claims, outcomes, skips, deferrals, publication marks) go through one group commit: those
   * made during one event-loop turn share a transaction, so 24 attempts in flight cost one fsync, not 24 (P12).
   * Each write runs in its own savepoint (a nested better-sqlite3 transaction): one that throws is undone alone and
   * its caller alone is rejected. Every caller is answered after the commit, as before.
   */
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
  async function write<R>(op: () => R): Promise<R> {
    const done = await writes.submit(op);
    if (!done.ok) throw done.error;
    return done.value as R;
  }

  return {
    async applyForm(form: FormView) {
      s.upsertForm.run({ id: form.id, version: form.version, doc: JSON.stringify(form) });
    },
    async deleteForm(formId, version) {
      s.deleteForm.run(formId, version);
    },
    async getForm(formId) {
      const row = s.getForm.get(formId) as { deleted: number; doc: string | null } | undefined;
      if (!row) return null;
      return row.deleted || !row.doc ? 'deleted' : (JSON.parse(row.doc) as FormView);
    },
    async saveSubmission(submission: StoredSubmission) {
      s.saveSubmission.run(submission.submissionId, JSON.stringify(submission));
    },
    saveSubmissions: async (submissions) => saveSubmissions(submissions),
    async getSubmission(submissionId) {
      const doc = s.getSubmission.get(submissionId) as string | undefined;
      return doc ? (JSON.parse(doc) as StoredSubmission) : null;
    },
    async deleteSubmission(submissionId) {
      s.deleteSubmission.run(submissionId);
    },
    planDeliveries: async (deliveries) => plan(deliveries),
    async getDelivery(id) {
      const row = s.getDelivery.get(id) as DeliveryRow | undefined;
      return row ? toDelivery(row) : null;
    },
    listBySubmission: async (submissionId) => (s.bySubmission.all(submissionId) as DeliveryRow[]).map(toDelivery),
    listByTarget: async (targetId, limit) => (s.byTarget.all(targetId, limit) as DeliveryRow[]).map(toDelivery),
    listFailed: async (formId, range, limit) =>
      (s.failed.all(formId, range.from, range.to, limit) as DeliveryRow[]).map(toDelivery),
    countSince: async (q) =>
      (q.target === undefined
        ? s.countForm.get(q.formId, q.purpose, q.since)
        : s.countTarget.get(q.formId, q.purpose, q.target, q.since)) as number,
    claimAttempt: (deliveryId, attempt, at) => write(() => claim(deliveryId, attempt, at.startedAt, at.leaseUntil)),
    recordOutcome: (deliveryId, attempt, outcome) => write(() => record(deliveryId, attempt, outcome)),
    claimFirstAttempts: (batch, deliveries) =>
      deliveries.length === 0 ? Promise.resolve([]) : write(() => claimFirst(batch, deliveries)),
    recordFirstAttempts: (_batch, results) => write(() => recordFirst(results)),
    listOpenBatches: async (before, limit) =>
      (
        s.openBatches.all(before, limit) as {
          id: string;
          delivery_ids: string;
          started_at: string;
          lease_until: string;
        }[]
      ).map(
        (r): OpenBatch => ({
          id: r.id,
          deliveryIds: JSON.parse(r.delivery_ids),
          startedAt: r.started_at,
          leaseUntil: r.lease_until,
        }),
      ),
    async closeBatch(batchId) {
      await write(() => s.closeBatch.run(batchId));
    },
    async skipAttempt(deliveryId, attempt) {
      await write(() => s.skip.run(attempt, deliveryId));
    },
    listAttempts: async (deliveryId) =>
      (
        s.attempts.all(deliveryId) as {
          delivery_id: string;
          attempt: number;
          started_at: string;
          outcome: string | null;
        }[]
      ).map(
        (r): AttemptRecord => ({
          deliveryId: r.delivery_id,
          attempt: r.attempt,
          startedAt: r.started_at,
          outcome: r.outcome ? JSON.parse(r.outcome) : null,
        }),
      ),
    listDue: async (now, limit) => (s.due.all(now, limit) as DeliveryRow[]).map(toDelivery),
    deferDelivery: (id, lastClaimed, at) => write(() => defer(id, lastClaimed, at)),
    listDeferred: async (orgId, limit) => (s.deferred.all(orgId, limit) as DeliveryRow[]).map(toDelivery),
    deferredOrgs: async () => s.deferredOrgs.all() as string[],
    listUnpublished: async (limit, before) => (s.unpublished.all(before, limit) as DeliveryRow[]).map(toDelivery),
    markPublished: (ids) => write(() => markPublished(ids)),
    markDeferralPublished: (ids) => write(() => markDeferralPublished(ids)),
    async close() {},
  };
}
