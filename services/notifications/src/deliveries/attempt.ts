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
  /** The channels deliveries go through, cheapest first (`createDeliveryChannels`). */
  channels: DeliveryChannels;
  outcomes: DurableOutcomes;
  clock: Clock;
  logger: Logger;
  /** Spans around every send when on (`startTracing`). */
  tracing?: Tracing | undefined;
  /** Counts every attempt in `formgate_notification_attempts_total{channel,status}`. */
  metrics?: Pick<Metrics, 'countNotificationAttempt'>;
  random?: () => number;
  /** `DELIVERY_TUNING.attemptLeaseMs` unless configured (`NOTIFICATIONS_ATTEMPT_LEASE_MS`). */
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

/** What every phase reads: the dependencies with their defaults resolved. */
interface AttemptEnv extends AttemptDeps {
  random: () => number;
  leaseMs: number;
}

/** claim: attempt `lastClaimed + 1` of the delivery, a unique insert (`held`: someone else's, see `recover`). */
async function claim(env: AttemptEnv, delivery: Delivery) {
  const n = delivery.lastClaimed + 1;
  const started = env.clock.now().getTime();
  const at = { startedAt: iso(started), leaseUntil: iso(started + env.leaseMs) };
  return { n, held: await env.log.claimAttempt(delivery.id, n, at) };
}

/** send: the channel's send (in a CLIENT span: ids and codes only, never an address or a URL); its outcome. */
async function send(env: AttemptEnv, claimed: Claimed, ctx: AttemptContext = {}): Promise<Sent> {
  const { delivery, n } = claimed;
  const channel = channelOf(env.channels, delivery);
  const result = env.tracing ? await traced(env.tracing, channel, claimed, ctx) : await channel.send(delivery, ctx);
  const now = env.clock.now().getTime();
  const delay = result.ok || !result.retryable ? null : retryDelayMs(channel.retrySchedule, n, env.random);
  const outcome: AttemptOutcome = {
    status: result.ok ? 'succeeded' : delay === null ? 'failed' : 'retrying',
    response: result.response,
    messageId: result.messageId,
    nextAttemptAt: delay === null ? null : iso(now + delay),
    at: iso(now),
  };
  const code = outcome.response?.code;
  env.logger.info({ deliveryId: delivery.id, attempt: n, status: outcome.status, code }, 'delivery attempt');
  env.metrics?.countNotificationAttempt(delivery.channel, outcome.status);
  return { ...claimed, outcome };
}

/** record: the outcome in the log, written until the store takes it; then the channel's follow-up of a final one. */
async function record(env: AttemptEnv, { delivery, n, batch, outcome }: Sent): Promise<Delivery | null> {
  const write = () =>
    batch ? env.log.recordFirstAttempt(batch, { delivery, outcome }) : env.log.recordOutcome(delivery.id, n, outcome);
  const recorded = await env.outcomes.retryUntilRecorded(write, { deliveryId: delivery.id, attempt: n });
  const followUp = recorded && isFinal(recorded.status) ? channelOf(env.channels, recorded).afterFinal : undefined;
  // A store hiccup here must not redo the send.
  await followUp?.(recorded as Delivery).catch((err: unknown) =>
    env.logger.warn({ err, deliveryId: delivery.id }, 'following up a final delivery failed'),
  );
  return recorded;
}

/** claim → send → record; `recover` when the claim is held by someone else. */
async function claimSendRecord(env: AttemptEnv, delivery: Delivery, ctx: AttemptContext = {}) {
  const { n, held } = await claim(env, delivery);
  if (!held.claimed) return recover(env, delivery, n, held);
  return record(env, await send(env, { delivery, n }, ctx));
}

/** A claim held by someone else: finish what a crash left half-written, or move past an abandoned attempt. */
async function recover(
  env: AttemptEnv,
  delivery: Delivery,
  n: number,
  held: { startedAt: string; outcome: AttemptOutcome | null },
): Promise<Delivery | null> {
  // The outcome reached the attempt record but not the delivery: written there again (idempotent).
  if (held.outcome) return env.log.recordOutcome(delivery.id, n, held.outcome);
  const now = env.clock.now();
  if (now.getTime() - Date.parse(held.startedAt) < env.leaseMs || !env.outcomes.mayTakeOver()) return null;
  env.logger.warn(
    { deliveryId: delivery.id, attempt: n },
    'attempt abandoned (its instance stopped mid-send?); trying again',
  );
  if (n < maxAttempts(channelOf(env.channels, delivery).retrySchedule)) {
    return claimSendRecord(env, { ...delivery, lastClaimed: n });
  }
  // The abandoned attempt's own record takes the outcome: nobody else can claim it any more.
  const response = { code: 'ABANDONED', text: 'the last attempt did not finish' };
  const failed = { status: 'failed' as const, response, messageId: null, nextAttemptAt: null, at: now.toISOString() };
  return env.log.recordOutcome(delivery.id, n, failed);
}

/** deferred: held back until the channel admits it (`deferred-releaser.ts`). */
async function defer(env: AttemptEnv, delivery: Delivery): Promise<Delivery | null> {
  if (delivery.status === 'deferred') return delivery;
  const deferred = await env.deferred.defer(delivery.id, delivery.lastClaimed, env.clock.now().toISOString());
  if (deferred?.status === 'deferred') {
    env.logger.info({ deliveryId: delivery.id, orgId: delivery.orgId }, 'delivery deferred: not admitted now');
  }
  return deferred;
}

/**
 * Makes the next attempt of `delivery` if this instance wins its claim, or defers it when its channel does not
 * admit it now (no claim, no send). Resolves with the delivery as it stands afterwards, or null when another
 * instance holds the attempt within its lease. Throws only when the store does.
 */
async function attempt(env: AttemptEnv, delivery: Delivery, ctx: AttemptContext = {}): Promise<Delivery | null> {
  if (isFinal(delivery.status)) return delivery;
  // A claim without outcome whose lease ended: its holder may be alive and waiting for the store (ADR 66).
  if (delivery.lastClaimed > delivery.attempts && !env.outcomes.mayTakeOver()) return null;
  const channel = channelOf(env.channels, delivery);
  if (!channel.admit) return claimSendRecord(env, delivery, ctx);
  const admission = channel.admit(delivery, env.clock.now());
  if (!admission) return defer(env, delivery);
  let after: Delivery | null = null;
  try {
    after = await claimSendRecord(env, delivery, ctx);
    return after;
  } finally {
    admission.settle(after?.status === 'succeeded' && after.attempts > delivery.attempts);
  }
}

/**
 * One attempt of one delivery. Its states, as the delivery log records them:
 *
 *     planned ─claim→ claimed ─send→ sent       (succeeded: final)
 *        │                          ├→ retry-at   (retrying: `nextAttemptAt` from the channel's retry schedule)
 *        │                          └→ dead       (failed: final, the schedule is over or the failure permanent)
 *        └─ the channel does not admit it → deferred (until the releaser attempts it again)
 *
 * and its phases, each a function above: `claim` (a unique insert per attempt number, written before anything is
 * sent: one sender per attempt across instances), `send` (the channel's, in a span), `record` (written until the
 * store takes it, ADR 66), then `publish` (`publish-outcomes.ts`, by whoever made the attempt, for a whole list).
 * A retry is this machine again, run by the retry worker once `nextAttemptAt` has passed. A claim whose holder died
 * before recording is taken over after the lease (`recover`): the one window in which an attempt is duplicated.
 */
export function createAttempts(deps: AttemptDeps) {
  const env: AttemptEnv = {
    ...deps,
    random: deps.random ?? Math.random,
    leaseMs: deps.attemptLeaseMs ?? DELIVERY_TUNING.attemptLeaseMs,
  };
  return {
    attempt: (delivery: Delivery, ctx?: AttemptContext) => attempt(env, delivery, ctx),
    send: (claimed: Claimed, ctx?: AttemptContext) => send(env, claimed, ctx),
    record: (sent: Sent) => record(env, sent),
    leaseMs: env.leaseMs,
  };
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
