import type { Clock, Logger, Metrics, Tracing } from '@formgate/kit';
import {
  type AttemptOutcome,
  type DeferredEmails,
  type Delivery,
  type DeliveryLog,
  type FirstAttemptBatch,
  isFinal,
} from '../store/index.ts';
import { type AttemptContext, channelOf, type DeliveryChannel, type DeliveryChannels } from './channel.ts';
import type { DurableOutcomes } from './durable-outcomes.ts';
import { maxAttempts, retryDelayMs } from './retry-schedule.ts';
import { DELIVERY_TUNING } from './tuning.ts';

export interface AttemptDeps {
  log: DeliveryLog;
  deferred: DeferredEmails;
  channels: DeliveryChannels;
  outcomes: DurableOutcomes;
  clock: Clock;
  logger: Logger;
  /** Spans around every send when on (`startTracing`). */
  tracing?: Tracing | undefined;
  /** Counts every attempt in `formgate_notification_attempts_total{channel,status}`. */
  metrics?: Pick<Metrics, 'countNotificationAttempt'>;
  random?: () => number;
  attemptLeaseMs?: number;
}

/** Attempt `n` of a delivery, held by this instance: by its own claim, or by a consumer batch's (`batch`). */
export interface Claimed {
  delivery: Delivery;
  n: number;
  batch?: FirstAttemptBatch;
}

/** A claimed attempt that was sent, with its outcome (not recorded yet). */
export interface Sent extends Claimed {
  outcome: AttemptOutcome;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One attempt of one delivery. Its states, as the delivery log records them:
 *
 *     planned ─claim→ claimed ─send→ sent       (succeeded: final)
 *        │                          ├→ retry-at   (retrying: `nextAttemptAt` from the channel's retry schedule)
 *        │                          └→ dead       (failed: final, the schedule is over or the failure permanent)
 *        └─ the channel does not admit it → deferred (until the releaser attempts it again)
 *
 * and its phases, each a function below: `claim` (a unique insert per attempt number, written before anything is
 * sent: one sender per attempt across instances), `send` (the channel's, in a span), `record` (written until the
 * store takes it, ADR 66), then `publish` (`publish-outcomes.ts`, by whoever made the attempt, for a whole list).
 * A retry is this machine again, run by the retry worker once `nextAttemptAt` has passed. A claim whose holder died
 * before recording is taken over after the lease (`recover`): the one window in which an attempt is duplicated.
 */
export function createAttempts(deps: AttemptDeps) {
  const { log, clock, logger, outcomes } = deps;
  const random = deps.random ?? Math.random;
  const leaseMs = deps.attemptLeaseMs ?? DELIVERY_TUNING.attemptLeaseMs;

  /** claim: attempt `lastClaimed + 1`, if nobody holds it (else `recover`). */
  async function claim(delivery: Delivery) {
    const n = delivery.lastClaimed + 1;
    const started = clock.now().getTime();
    const held = await log.claimAttempt(delivery.id, n, {
      startedAt: iso(started),
      leaseUntil: iso(started + leaseMs),
    });
    return { n, held };
  }

  /** send: the channel's send (in a CLIENT span: ids and codes only, never an address or a URL); its outcome. */
  async function send(claimed: Claimed, ctx: AttemptContext = {}): Promise<Sent> {
    const { delivery, n } = claimed;
    const channel = channelOf(deps.channels, delivery);
    const result = deps.tracing ? await traced(deps.tracing, channel, claimed, ctx) : await channel.send(delivery, ctx);
    const now = clock.now().getTime();
    const delay = result.ok || !result.retryable ? null : retryDelayMs(channel.retrySchedule, n, random);
    const outcome: AttemptOutcome = {
      status: result.ok ? 'succeeded' : delay === null ? 'failed' : 'retrying',
      response: result.response,
      messageId: result.messageId,
      nextAttemptAt: delay === null ? null : iso(now + delay),
      at: iso(now),
    };
    const code = outcome.response?.code;
    logger.info({ deliveryId: delivery.id, attempt: n, status: outcome.status, code }, 'delivery attempt');
    deps.metrics?.countNotificationAttempt(delivery.channel, outcome.status);
    return { ...claimed, outcome };
  }

  /** record: the outcome in the log, written until the store takes it; then the channel's follow-up of a final one. */
  async function record({ delivery, n, batch, outcome }: Sent): Promise<Delivery | null> {
    const write = () =>
      batch ? log.recordFirstAttempt(batch, { delivery, outcome }) : log.recordOutcome(delivery.id, n, outcome);
    const recorded = await outcomes.retryUntilRecorded(write, { deliveryId: delivery.id, attempt: n });
    const followUp = recorded && isFinal(recorded.status) ? channelOf(deps.channels, recorded).afterFinal : undefined;
    // A store hiccup here must not redo the send.
    await followUp?.(recorded as Delivery).catch((err: unknown) =>
      logger.warn({ err, deliveryId: delivery.id }, 'following up a final delivery failed'),
    );
    return recorded;
  }

  /** claim → send → record; `recover` when the claim is held by someone else. */
  async function claimSendRecord(delivery: Delivery, ctx: AttemptContext = {}): Promise<Delivery | null> {
    const { n, held } = await claim(delivery);
    if (!held.claimed) return recover(delivery, n, held);
    return record(await send({ delivery, n }, ctx));
  }

  /** A claim held by someone else: finish what a crash left half-written, or move past an abandoned attempt. */
  async function recover(delivery: Delivery, n: number, held: { startedAt: string; outcome: AttemptOutcome | null }) {
    // The outcome reached the attempt record but not the delivery: written there again (idempotent).
    if (held.outcome) return log.recordOutcome(delivery.id, n, held.outcome);
    if (clock.now().getTime() - Date.parse(held.startedAt) < leaseMs || !outcomes.mayTakeOver()) return null;
    logger.warn(
      { deliveryId: delivery.id, attempt: n },
      'attempt abandoned (its instance stopped mid-send?); trying again',
    );
    if (n < maxAttempts(channelOf(deps.channels, delivery).retrySchedule)) {
      return claimSendRecord({ ...delivery, lastClaimed: n });
    }
    // The abandoned attempt's own record takes the outcome: nobody else can claim it any more.
    const response = { code: 'ABANDONED', text: 'the last attempt did not finish' };
    const at = clock.now().toISOString();
    return log.recordOutcome(delivery.id, n, { status: 'failed', response, messageId: null, nextAttemptAt: null, at });
  }

  /**
   * Makes the next attempt of `delivery` if this instance wins its claim, or defers it when its channel does not
   * admit it now (no claim, no send). Resolves with the delivery as it stands afterwards, or null when another
   * instance holds the attempt within its lease. Throws only when the store does.
   */
  async function attempt(delivery: Delivery, ctx: AttemptContext = {}): Promise<Delivery | null> {
    if (isFinal(delivery.status)) return delivery;
    // A claim without outcome whose lease ended: its holder may be alive and waiting for the store (ADR 66).
    if (delivery.lastClaimed > delivery.attempts && !outcomes.mayTakeOver()) return null;
    const channel = channelOf(deps.channels, delivery);
    if (!channel.admit) return claimSendRecord(delivery, ctx);
    const admission = channel.admit(delivery, clock.now());
    if (!admission) return defer(delivery);
    let after: Delivery | null = null;
    try {
      after = await claimSendRecord(delivery, ctx);
      return after;
    } finally {
      admission.settle(after?.status === 'succeeded' && after.attempts > delivery.attempts);
    }
  }

  /** deferred: held back until the channel admits it (`deferred-releaser.ts`). */
  async function defer(delivery: Delivery): Promise<Delivery | null> {
    if (delivery.status === 'deferred') return delivery;
    const deferred = await deps.deferred.defer(delivery.id, delivery.lastClaimed, clock.now().toISOString());
    if (deferred?.status === 'deferred') {
      logger.info({ deliveryId: delivery.id, orgId: delivery.orgId }, 'delivery deferred: not admitted now');
    }
    return deferred;
  }

  return { attempt, defer, send, record, leaseMs };
}

export type Attempts = ReturnType<typeof createAttempts>;

async function traced(tracing: Tracing, channel: DeliveryChannel, { delivery, n }: Claimed, ctx: AttemptContext) {
  const attributes = {
    'formgate.delivery.channel': delivery.channel,
    'formgate.delivery.purpose': delivery.purpose,
    'formgate.delivery.attempt': n,
    'formgate.form.id': delivery.formId,
    'formgate.org.id': delivery.orgId,
  };
  return tracing.client(channel.spanName, attributes, async (span) => {
    const result = await channel.send(delivery, ctx);
    span.setAttribute('formgate.delivery.outcome', result.response?.code ?? (result.ok ? 'ok' : 'failed'));
    if (!result.ok) span.fail();
    return result;
  });
}
