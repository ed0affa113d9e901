import type { EventPublisher } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';
import { type Clock, type Ids, type Logger, type Metrics, mapLimit, type Tracing } from '@formgate/kit';
import { type Mailer, MailSendError } from '@formgate/mail';
import type { WebhookChannel } from '../endpoints/webhook-channel.ts';
import { nextRetryDelayMs } from '../webhooks/retry-schedule.ts';
import {
  type AttemptOutcome,
  type Delivery,
  type DeliveryStore,
  type FirstAttemptBatch,
  type FirstAttemptResult,
  isFinal,
} from './delivery-store.ts';
import { createDurableOutcomes, type DurableOutcomesDeps } from './durable-outcomes.ts';
import type { EmailQuota } from './email-quota.ts';
import type { AttemptContext, Composer } from './ports.ts';
import { MAX_ATTEMPTS, retryDelayMs } from './retry-schedule.ts';

/**
 * How long a claimed attempt may take before another instance considers it abandoned (its claimer crashed between
 * claiming and recording) and makes the next one. Longer than any send: nodemailer's connection and greeting
 * timeouts are 2 min and 30 s; an SMTP send that outlives this lease may be duplicated.
 */
export const ATTEMPT_LEASE_MS = 180_000;

export interface DeliveryRunnerDeps {
  store: DeliveryStore;
  bus: EventPublisher;
  mailer: Mailer;
  compose: Composer;
  /** Sends `webhook` deliveries; without it they fail (`UNSUPPORTED_CHANNEL`). */
  webhooks?: WebhookChannel;
  /** The organizations' emails quota (`billing.quota`): an email over it is deferred. Without it, none is. */
  quota?: EmailQuota;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** Spans around every attempt when on (`startTracing`). */
  tracing?: Tracing | undefined;
  publicUrl: string;
  random?: () => number;
  /** Counts every attempt in `formgate_notification_attempts_total{channel,status}`. */
  metrics?: Pick<Metrics, 'countNotificationAttempt'>;
  /** `ATTEMPT_LEASE_MS` unless configured (`NOTIFICATIONS_ATTEMPT_LEASE_MS`). */
  attemptLeaseMs?: number;
  /** How outcomes are written again after a store failure (tests shorten it): `durable-outcomes.ts`. */
  outcomeRetry?: Pick<DurableOutcomesDeps, 'retry' | 'graceMs'>;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Runs a send within a concurrency limit (`p-limit`'s shape); the identity by default. */
type Limit = <T>(fn: () => Promise<T>) => Promise<T>;
type EmailTicket = NonNullable<ReturnType<EmailQuota['take']>>;

/** A short, header-free description of why a send failed: the SMTP reply code and text, never message content. */
function responseOf(err: unknown): { code: string; text: string } {
  const cause = (err instanceof MailSendError ? err.cause : err) as
    | { responseCode?: number; code?: string; response?: string; message?: string }
    | undefined;
  const code = cause?.responseCode !== undefined ? String(cause.responseCode) : (cause?.code ?? 'ERROR');
  const text = (cause?.response ?? (err as Error)?.message ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 200);
  return { code, text };
}

/**
 * Makes attempts and publishes outcomes. One attempt of one delivery: claim attempt n (a unique insert — the effect
 * record, written before anything is sent), compose, send, record the outcome. Only the claim's holder sends, so
 * two instances never send the same attempt. An outcome the store does not take is written again until it does
 * (ADR 66), so only a claimer that crashes after sending and before recording leaves a claim without outcome; after
 * `ATTEMPT_LEASE_MS` the next attempt is made: that is the one possible duplicate.
 */
export function createDeliveryRunner(deps: DeliveryRunnerDeps) {
  const { store, clock, logger } = deps;
  const random = deps.random ?? Math.random;
  const leaseMs = deps.attemptLeaseMs ?? ATTEMPT_LEASE_MS;
  const outcomes = createDurableOutcomes({ clock, logger, random, ...deps.outcomeRetry });

  /** Sends one attempt; resolves with the outcome (a failed send is an outcome, not an exception). */
  async function send(
    delivery: Delivery,
    known: AttemptContext,
  ): Promise<Omit<AttemptOutcome, 'status' | 'nextAttemptAt' | 'at'> & { ok: boolean; retryable: boolean }> {
    if (delivery.channel === 'webhook' && deps.webhooks) return deps.webhooks.send(delivery, known);
    if (delivery.channel !== 'email') {
      return {
        ok: false,
        retryable: false,
        response: { code: 'UNSUPPORTED_CHANNEL', text: delivery.channel },
        messageId: null,
      };
    }
    const [form, submission] = await Promise.all([
      known.form ?? store.getForm(delivery.formId),
      known.submission ?? store.getSubmission(delivery.submissionId),
    ]);
    if (!submission || !form || form === 'deleted') {
      const text = !submission ? 'the submission was deleted' : 'the form was deleted';
      return { ok: false, retryable: false, response: { code: 'GONE', text }, messageId: null };
    }
    const input = {
      form,
      submission,
      to: delivery.target,
      publicUrl: deps.publicUrl,
      ...(delivery.resendOf ? { resendId: delivery.id } : {}),
    };
    let message: Awaited<ReturnType<Composer['notification']>>;
    try {
      message = await (delivery.purpose === 'autoresponse'
        ? deps.compose.autoresponse(input)
        : deps.compose.notification(input));
    } catch (err) {
      logger.error({ err: { name: (err as Error).name }, deliveryId: delivery.id }, 'composing a mail failed');
      return {
        ok: false,
        retryable: false,
        response: { code: 'COMPOSE_FAILED', text: 'the mail could not be composed' },
        messageId: null,
      };
    }
    try {
      const { messageId } = await deps.mailer.send(message);
      return { ok: true, retryable: false, response: { code: '250', text: 'accepted' }, messageId };
    } catch (err) {
      const retryable = err instanceof MailSendError ? err.retryable : true;
      return { ok: false, retryable, response: responseOf(err), messageId: null };
    }
  }

  /**
   * `send` in a CLIENT span (ADR 51): `smtp send` or `webhook POST`, with ids, the attempt number and the outcome's
   * code only — never the address, the URL or the message. Webhook requests carry no `traceparent` (third parties).
   */
  async function traced(traces: Tracing, delivery: Delivery, n: number, known: AttemptContext) {
    const name = delivery.channel === 'webhook' ? 'webhook POST' : delivery.channel === 'email' ? 'smtp send' : 'send';
    const attributes = {
      'formgate.delivery.channel': delivery.channel,
      'formgate.delivery.purpose': delivery.purpose,
      'formgate.delivery.attempt': n,
      'formgate.form.id': delivery.formId,
      'formgate.org.id': delivery.orgId,
    };
    return traces.client(name, attributes, async (span) => {
      const result = await send(delivery, known);
      const code = result.response?.code ?? (result.ok ? 'ok' : 'failed');
      span.setAttribute('formgate.delivery.outcome', code);
      if (!result.ok) span.fail();
      return result;
    });
  }

  /** A claim held by someone else: finish what a crash left half-written, or move past an abandoned attempt. */
  async function recover(
    delivery: Delivery,
    n: number,
    held: { startedAt: string; finished: boolean },
  ): Promise<Delivery | null> {
    if (held.finished) {
      // The outcome reached the attempt record but not the delivery: write it there again (idempotent).
      const outcome = (await store.listAttempts(delivery.id)).find((a) => a.attempt === n)?.outcome;
      return outcome ? store.recordOutcome(delivery.id, n, outcome) : null;
    }
    if (clock.now().getTime() - Date.parse(held.startedAt) < leaseMs || !outcomes.mayTakeOver()) return null;
    logger.warn(
      { deliveryId: delivery.id, attempt: n },
      'attempt abandoned (its instance stopped mid-send?); trying again',
    );
    if (n >= MAX_ATTEMPTS) {
      const at = clock.now().toISOString();
      const response = { code: 'ABANDONED', text: 'the last attempt did not finish' };
      // The abandoned attempt's own record takes the outcome: nobody else can claim it any more.
      return store.recordOutcome(delivery.id, n, {
        status: 'failed',
        response,
        messageId: null,
        nextAttemptAt: null,
        at,
      });
    }
    await store.skipAttempt(delivery.id, n);
    return attemptNow({ ...delivery, lastClaimed: n });
  }

  /**
   * Makes the next attempt of `delivery` if this instance wins its claim (after moving past an abandoned one), or,
   * for an email while its organization is over its emails quota, defers it: no claim, no send; it stays `deferred`
   * (no `nextAttemptAt`) until the releaser attempts it again once the quota allows. Resolves with the delivery as
   * it stands afterwards, or null when another instance holds the attempt within its lease. Throws only when the
   * store does. `known`: what the caller read already for it (`AttemptContext`).
   */
  async function attempt(delivery: Delivery, known: AttemptContext = {}): Promise<Delivery | null> {
    if (isFinal(delivery.status)) return delivery;
    // A claim without outcome whose lease ended: its holder may be alive and waiting for the store (ADR 66).
    if (delivery.lastClaimed > delivery.attempts && !outcomes.mayTakeOver()) return null;
    if (delivery.channel !== 'email' || !deps.quota) return attemptNow(delivery, known);
    const now = clock.now();
    const ticket = deps.quota.take(delivery.orgId, now);
    if (!ticket) {
      if (delivery.status === 'deferred') return delivery;
      const deferred = await store.deferDelivery(delivery.id, delivery.lastClaimed, now.toISOString());
      if (deferred?.status === 'deferred') {
        logger.info({ deliveryId: delivery.id, orgId: delivery.orgId }, 'email deferred: over the emails quota');
      }
      return deferred;
    }
    let after: Delivery | null = null;
    try {
      after = await attemptNow(delivery, known);
      return after;
    } finally {
      ticket.settle(after?.status === 'succeeded' && after.attempts > delivery.attempts);
    }
  }

  /** Sends attempt `n` of a delivery whose claim this instance holds; resolves with its outcome (logged, counted). */
  async function outcomeOf(delivery: Delivery, n: number, known: AttemptContext = {}): Promise<AttemptOutcome> {
    const result = deps.tracing ? await traced(deps.tracing, delivery, n, known) : await send(delivery, known);
    const now = clock.now().getTime();
    const schedule = delivery.channel === 'webhook' ? nextRetryDelayMs : retryDelayMs;
    const delay = result.ok || !result.retryable ? null : schedule(n, random);
    const outcome: AttemptOutcome = {
      status: result.ok ? 'succeeded' : delay === null ? 'failed' : 'retrying',
      response: result.response,
      messageId: result.messageId,
      nextAttemptAt: delay === null ? null : iso(now + delay),
      at: iso(now),
    };
    logger.info(
      { deliveryId: delivery.id, attempt: n, status: outcome.status, code: outcome.response?.code },
      'delivery attempt',
    );
    deps.metrics?.countNotificationAttempt(delivery.channel, outcome.status);
    return outcome;
  }

  /** What follows a recorded final webhook delivery: the endpoint's health (a consequence, never a resend). */
  async function afterRecorded(recorded: Delivery | null) {
    if (recorded?.channel === 'webhook' && isFinal(recorded.status) && deps.webhooks) {
      // A store hiccup here must not redo the send.
      await deps.webhooks
        .afterFinal(recorded)
        .catch((err: unknown) => logger.warn({ err, deliveryId: recorded.id }, 'checking the endpoint failed'));
    }
  }

  async function attemptNow(delivery: Delivery, known: AttemptContext = {}): Promise<Delivery | null> {
    const n = delivery.lastClaimed + 1;
    const started = clock.now().getTime();
    const claim = await store.claimAttempt(delivery.id, n, {
      startedAt: iso(started),
      leaseUntil: iso(started + leaseMs),
    });
    if (!claim.claimed) return recover(delivery, n, claim);
    const outcome = await outcomeOf(delivery, n, known);
    const recorded = await outcomes.retryUntilRecorded(() => store.recordOutcome(delivery.id, n, outcome), {
      deliveryId: delivery.id,
      attempt: n,
    });
    await afterRecorded(recorded);
    return recorded;
  }

  /**
   * Records a batch's first-attempt outcomes as they come, in as few store calls as the store's pace allows: the
   * outcomes that arrive while one `recordFirstAttempts` call is under way go together in the next (a group commit).
   * `record` resolves once its outcome is stored, with the delivery as recorded; a failed call is made again until
   * it is (ADR 66), the outcomes arriving meanwhile waiting for the call after it.
   */
  function recorderOf(batch: FirstAttemptBatch) {
    type Waiting = FirstAttemptResult & { resolve(d: Delivery): void; reject(err: unknown): void };
    let waiting: Waiting[] = [];
    let flushing = false;
    async function flush() {
      flushing = true;
      while (waiting.length > 0) {
        const taken = waiting;
        waiting = [];
        try {
          const recorded = await outcomes.retryUntilRecorded(() => store.recordFirstAttempts(batch, taken), {
            batchId: batch.id,
            deliveries: taken.length,
          });
          for (const [i, w] of taken.entries()) w.resolve(recorded[i] ?? w.delivery);
        } catch (err) {
          for (const w of taken) w.reject(err);
        }
      }
      flushing = false;
    }
    return {
      record: (result: FirstAttemptResult) =>
        new Promise<Delivery>((resolve, reject) => {
          waiting.push({ ...result, resolve, reject });
          if (!flushing) void flush();
        }),
    };
  }

  /**
   * The first attempts of a consumer batch's deliveries, with the store called per batch, not per delivery (ADR 61):
   * the batch record and the claim of every new delivery's attempt 1 (`claimFirstAttempts`), the sends, every outcome
   * in group commits (`recordFirstAttempts`; a failure also writes its delivery), one publication, and the batch
   * closed. Emails over their organization's quota are planned unclaimed and deferred (`attempt`). Deliveries planned
   * before (a redelivered batch) are not attempted; their final outcomes are published again (same event ids).
   *
   * Resolves once every claim is durable (ADR 64), with how many deliveries it claimed and `sent`: the sends, their
   * outcomes recorded and published, the batch closed. The caller may commit its consumer offset then: from there the
   * batch record is what finds an unfinished send. `sent` waits for every send before it rejects, so what was sent is
   * recorded and published even when another attempt failed. Outcomes are written until the store takes them (ADR
   * 66): only a stopped instance leaves a batch open with an attempt unrecorded, and the retry worker makes that
   * delivery's attempt 2 once the lease has passed (`recoverBatches`): the window of a duplicate, as for any claim. A send not started within half the lease (a backlog behind a hung
   * SMTP server) is not started at all: the retry worker's attempt 2 would race it.
   */
  async function firstAttempts(
    wanted: Delivery[],
    options: { known?: (id: string) => AttemptContext | undefined; limit?: Limit } = {},
  ): Promise<{ claimed: number; sent: Promise<void> }> {
    if (wanted.length === 0) return { claimed: 0, sent: Promise.resolve() };
    const limit: Limit = options.limit ?? ((fn) => fn());
    const now = clock.now();
    const tickets = new Map<string, EmailTicket>();
    const overQuota: Delivery[] = [];
    const claimable: Delivery[] = [];
    for (const d of wanted) {
      const ticket = d.channel === 'email' && deps.quota ? deps.quota.take(d.orgId, now) : undefined;
      if (ticket === null) overQuota.push(d);
      else {
        if (ticket) tickets.set(d.id, ticket);
        claimable.push(d);
      }
    }
    const batch = { id: deps.ids.next(), startedAt: iso(now.getTime()), leaseUntil: iso(now.getTime() + leaseMs) };
    let planned: { delivery: Delivery; claimed: boolean }[];
    try {
      planned = await store.claimFirstAttempts(batch, claimable);
    } catch (err) {
      for (const ticket of tickets.values()) ticket.settle(false);
      throw err;
    }
    const found = planned.filter((p) => !p.claimed).map((p) => p.delivery);
    for (const d of found) tickets.get(d.id)?.settle(false);
    const claimed = planned.filter((p) => p.claimed).map((p) => p.delivery);
    const sent = sendClaimed(batch, claimed, tickets, options.known, limit);
    // The caller awaits `sent`; handled here too, so that it failing while the rest is awaited is no unhandled
    // rejection. A failure below leaves these sends going on: their batch record finds any that cannot finish.
    sent.catch(() => {});
    // Planned before and never claimed (a batch handled by an older version that stopped before its first
    // attempts): attempted now, one claim each, as a redelivered submission's were. No batch record covers them,
    // so they are finished before the caller commits, as are the deferrals over the quota.
    const unclaimed = await Promise.all(
      found
        .filter((d) => d.lastClaimed === 0 && d.status === 'pending')
        .map((d) => limit(() => attempt(d, options.known?.(d.id)))),
    );
    await publishOutcomes([
      ...found.filter((d) => d.lastClaimed !== 0),
      ...unclaimed.filter((d): d is Delivery => d !== null),
    ]);
    if (overQuota.length > 0) {
      const deferred = await Promise.all((await store.planDeliveries(overQuota)).map((d) => attempt(d)));
      await publishOutcomes(deferred.filter((d): d is Delivery => d !== null));
    }
    return { claimed: claimed.length, sent };
  }

  /** `firstAttempts`' sends of the deliveries it claimed in `batch`: see there. */
  async function sendClaimed(
    batch: FirstAttemptBatch,
    claimed: Delivery[],
    tickets: Map<string, EmailTicket>,
    known: ((id: string) => AttemptContext | undefined) | undefined,
    limit: Limit,
  ): Promise<void> {
    const recorder = recorderOf(batch);
    const startBy = Date.parse(batch.leaseUntil) - leaseMs / 2;
    let late = 0;
    const sends = await Promise.allSettled(
      claimed.map((delivery) =>
        // The slot is held until the outcome is recorded: what a crash can duplicate stays what is in flight.
        limit(async () => {
          if (clock.now().getTime() > startBy) {
            tickets.get(delivery.id)?.settle(false);
            late += 1;
            return null;
          }
          let outcome: AttemptOutcome | undefined;
          try {
            outcome = await outcomeOf(delivery, 1, known?.(delivery.id));
          } finally {
            tickets.get(delivery.id)?.settle(outcome?.status === 'succeeded');
          }
          const recorded = await recorder.record({ delivery, outcome });
          await afterRecorded(recorded);
          return recorded;
        }),
      ),
    );
    const recorded = sends.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
    // The batch's successes have no publication mark of their own: closing the batch is theirs.
    const unmarked = new Set(recorded.filter((d) => d.status === 'succeeded' && d.attempts === 1).map((d) => d.id));
    await publishOutcomes(recorded, unmarked);
    const failedSend = sends.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (late > 0) {
      logger.warn(
        { batchId: batch.id, deliveries: late },
        'first attempts not started within half their lease: left to the retry worker',
      );
    }
    // Open until every claimed attempt has its outcome: one without is the retry worker's after the lease.
    if (!failedSend && late === 0) {
      // Also the publication mark of the batch's successes: without it, the lease would publish them again.
      await outcomes.retryUntilRecorded(() => store.closeBatch(batch.id), { batchId: batch.id });
    }
    if (failedSend) throw failedSend.reason;
  }

  /**
   * Finishes batches whose lease ended while they were open (their instance stopped, or could not publish): a
   * delivery still without attempt 1's outcome was abandoned, and its attempt 2 is made now (through the claim, so
   * one instance makes it); the final outcomes found are published again (same event ids); then the batch is closed.
   * None while a store failure is recent (`mayTakeOver`, ADR 66). Resolves with how many batches it finished.
   */
  async function recoverBatches(limitBatches: number): Promise<number> {
    if (!outcomes.mayTakeOver()) return 0;
    const open = await store.listOpenBatches(clock.now().toISOString(), limitBatches);
    for (const batch of open) {
      const stored = (await Promise.all(batch.deliveryIds.map((id) => store.getDelivery(id)))).filter(
        (d): d is Delivery => d !== null,
      );
      const abandoned = (d: Delivery) => d.lastClaimed === 1 && d.attempts === 0 && d.status === 'pending';
      for (const d of stored.filter(abandoned)) {
        logger.warn(
          { deliveryId: d.id, attempt: 1 },
          'attempt abandoned (its instance stopped mid-send?); trying again',
        );
      }
      const made = await mapLimit(stored, 4, (d) => (abandoned(d) ? attempt(d) : Promise.resolve(d)));
      await publishOutcomes(made.filter((d): d is Delivery => d !== null));
      await store.closeBatch(batch.id);
    }
    return open.length;
  }

  /**
   * Publishes `delivery.succeeded` / `delivery.failed` for final deliveries and `delivery.deferred` for deferred
   * ones, then clears their pending marks (each its own: a deferral published while the delivery was released and
   * finished leaves the outcome pending), except those of `unmarked` (a batch's successes, which have none).
   */
  async function publishOutcomes(deliveries: Delivery[], unmarked: ReadonlySet<string> = new Set()) {
    const final = deliveries.filter((d) => isFinal(d.status));
    const deferred = deliveries.filter((d) => d.status === 'deferred');
    if (final.length === 0 && deferred.length === 0) return;
    const type = (d: Delivery) =>
      d.status === 'succeeded' ? 'delivery.succeeded' : d.status === 'failed' ? 'delivery.failed' : 'delivery.deferred';
    const messages = [...final, ...deferred].map((d) => ({
      key: d.orgId,
      value: encodeEvent(Topics.notificationsDelivery, {
        // One id per delivery outcome: a re-publication carries the same id, so consumers deduplicate on it.
        id: deps.ids.derived('delivery-outcome', d.id, d.status),
        type: type(d),
        version: 1,
        occurredAt: d.updatedAt,
        data: {
          deliveryId: d.id,
          orgId: d.orgId,
          formId: d.formId,
          submissionId: d.submissionId,
          channel: d.channel,
          purpose: d.purpose,
          // A webhook's URL can be its credential (Slack, Discord): the events name the endpoint by its id.
          target: d.channel === 'webhook' ? (d.targetId ?? '') : d.target,
          // A deferral names the attempt that will follow it.
          attempt: d.status === 'deferred' ? d.lastClaimed + 1 : Math.max(d.attempts, 1),
          final: isFinal(d.status),
          at: d.updatedAt,
          // A batch's successes were claimed as they were planned: never deferred (billing skips its ledger).
          ...(unmarked.has(d.id) ? { neverDeferred: true } : {}),
        },
      }),
    }));
    await deps.bus.publish(Topics.notificationsDelivery, messages);
    // A batch's successes carry no mark of their own: closing the batch is theirs (`firstAttempts`).
    const marked = final.filter((d) => !unmarked.has(d.id));
    if (marked.length > 0) await store.markPublished(marked.map((d) => d.id));
    if (deferred.length > 0) await store.markDeferralPublished(deferred.map((d) => d.id));
  }

  return {
    attempt,
    firstAttempts,
    recoverBatches,
    publishOutcomes,
    /** A store call failed (the retry worker's): no lease is taken over for a while (`durable-outcomes.ts`). */
    storeFailed: outcomes.failed,
    /** Shutdown: outcomes still unwritten are left to their lease, as after a crash. */
    stop: outcomes.stop,
  };
}

export type DeliveryRunner = ReturnType<typeof createDeliveryRunner>;
