import { type Clock, type Ids, type Logger, mapLimit } from '@formgate/kit';
import type { Delivery, DeliveryLog, FirstAttemptBatch } from '../../store/index.ts';
import type { Attempts } from '../attempt.ts';
import { type Admission, type AttemptContext, channelOf, type DeliveryChannels } from '../channel.ts';
import type { DurableOutcomes } from '../durable-outcomes.ts';
import type { PublishOutcomes } from '../publish-outcomes.ts';

/** Runs a send within a concurrency limit (`p-limit`'s shape); the identity by default. */
export type Limit = <T>(fn: () => Promise<T>) => Promise<T>;

export interface FirstAttemptsDeps {
  log: DeliveryLog;
  attempts: Attempts;
  publish: PublishOutcomes;
  outcomes: DurableOutcomes;
  channels: DeliveryChannels;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** After a batch was closed, with its deliveries: a no-store submission may be settled now. Never rejects. */
  afterClosed: (deliveries: Delivery[]) => Promise<void>;
}

const iso = (ms: number) => new Date(ms).toISOString();

type Options = { context?: (id: string) => AttemptContext | undefined; limit?: Limit };

/** Which deliveries their channel admits now (their admissions kept), and which it does not. */
function admit(deps: FirstAttemptsDeps, wanted: Delivery[], now: Date) {
  const admissions = new Map<string, Admission>();
  const notAdmitted: Delivery[] = [];
  const claimable: Delivery[] = [];
  for (const d of wanted) {
    const admission = channelOf(deps.channels, d).admit?.(d, now);
    if (admission === null) notAdmitted.push(d);
    else claimable.push(d);
    if (admission) admissions.set(d.id, admission);
  }
  return { admissions, notAdmitted, claimable };
}

/**
 * Claims, then sends in the background: resolves once every claim is durable, with how many deliveries it claimed
 * and `sent`, which settles once they are sent, recorded and published and the batch closed. The caller may commit
 * its consumer offset when this resolves: the batch record then finds an unfinished send. Deliveries planned before
 * (a redelivered batch) are not attempted again; their final outcomes are published again (same event ids).
 * Deliveries their channel does not admit now are planned unclaimed and deferred.
 */
async function firstAttempts(
  deps: FirstAttemptsDeps,
  wanted: Delivery[],
  options: Options = {},
): Promise<{ claimed: number; sent: Promise<void> }> {
  if (wanted.length === 0) return { claimed: 0, sent: Promise.resolve() };
  const { log, attempts } = deps;
  const now = deps.clock.now();
  const { admissions, notAdmitted, claimable } = admit(deps, wanted, now);
  const lease = { startedAt: iso(now.getTime()), leaseUntil: iso(now.getTime() + attempts.leaseMs) };
  const batch = { id: deps.ids.next(), ...lease };
  const planned = await log.claimFirstAttempts(batch, claimable).catch((err: unknown) => {
    for (const admission of admissions.values()) admission.settle(false);
    throw err;
  });
  const plannedBefore = planned.filter((p) => !p.claimed).map((p) => p.delivery);
  for (const d of plannedBefore) admissions.get(d.id)?.settle(false);
  const claimed = planned.filter((p) => p.claimed).map((p) => p.delivery);
  const sent = sendClaimed(deps, batch, claimed, admissions, options);
  // The caller awaits `sent`; handled here too, so that it failing while the rest is awaited is no unhandled
  // rejection. A failure below leaves these sends going on: their batch record finds any that cannot finish.
  sent.catch(() => {});
  await deps.publish(plannedBefore);
  if (notAdmitted.length > 0) {
    const deferred = await Promise.all((await log.planDeliveries(notAdmitted)).map((d) => attempts.attempt(d)));
    await deps.publish(deferred.filter((d): d is Delivery => d !== null));
  }
  return { claimed: claimed.length, sent };
}

/**
 * The sends of what `batch` claimed, each holding a `limit` slot until its outcome is recorded (what a crash can
 * duplicate stays what is in flight). A send not started within half the lease (a backlog behind a hung SMTP
 * server) is not started at all: the retry worker's attempt 2 would race it. The batch stays open while an attempt
 * has no outcome; `sent` waits for every send before it rejects, so what was sent is recorded and published.
 */
async function sendClaimed(
  deps: FirstAttemptsDeps,
  batch: FirstAttemptBatch,
  claimed: Delivery[],
  admissions: Map<string, Admission>,
  options: Options,
): Promise<void> {
  const { attempts } = deps;
  const limit: Limit = options.limit ?? ((fn) => fn());
  const startBy = Date.parse(batch.leaseUntil) - attempts.leaseMs / 2;
  let late = 0;
  const sendOne = async (delivery: Delivery) => {
    const admission = admissions.get(delivery.id);
    if (deps.clock.now().getTime() > startBy) {
      admission?.settle(false);
      late += 1;
      return null;
    }
    let succeeded = false;
    try {
      const sent = await attempts.send({ delivery, n: 1, batch }, options.context?.(delivery.id));
      succeeded = sent.outcome.status === 'succeeded';
      return await attempts.record(sent);
    } finally {
      admission?.settle(succeeded);
    }
  };
  const sends = await Promise.allSettled(claimed.map((delivery) => limit(() => sendOne(delivery))));
  const recorded = sends.flatMap((r) => (r.status === 'fulfilled' && r.value ? [r.value] : []));
  const successes = new Set(recorded.filter((d) => d.status === 'succeeded' && d.attempts === 1).map((d) => d.id));
  await deps.publish(recorded, successes);
  const failedSend = sends.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (late > 0) {
    const context = { batchId: batch.id, deliveries: late };
    deps.logger.warn(context, 'first attempts not started within half their lease: left to the retry worker');
  }
  // Closing is also the publication mark of the batch's successes: without it, the lease would publish them again.
  if (!failedSend && late === 0) {
    await deps.outcomes.retryUntilRecorded(() => deps.log.closeBatch(batch.id), { batchId: batch.id });
    // Those of forms known to store content are never settled: no read for them.
    await deps.afterClosed(recorded.filter((d) => options.context?.(d.id)?.form?.storeContent !== true));
  }
  if (failedSend) throw failedSend.reason;
}

/**
 * Finishes batches whose lease ended while open (their instance stopped, or could not publish): a delivery still
 * without attempt 1's outcome was abandoned, and its attempt 2 is made now (through its claim: one instance makes
 * it); the final outcomes found are published again (same event ids); then the batch is closed. None while a store
 * failure is recent (ADR 66). Resolves with how many batches it finished.
 */
async function recoverBatches(deps: FirstAttemptsDeps, limitBatches: number): Promise<number> {
  if (!deps.outcomes.mayTakeOver()) return 0;
  const open = await deps.log.listOpenBatches(deps.clock.now().toISOString(), limitBatches);
  const abandoned = (d: Delivery) => d.lastClaimed === 1 && d.attempts === 0 && d.status === 'pending';
  for (const { batch, deliveries } of open) {
    for (const d of deliveries.filter(abandoned)) {
      deps.logger.warn(
        { deliveryId: d.id, attempt: 1 },
        'attempt abandoned (its instance stopped mid-send?); trying again',
      );
    }
    const made = await mapLimit(deliveries, 4, (d) => (abandoned(d) ? deps.attempts.attempt(d) : Promise.resolve(d)));
    await deps.publish(made.filter((d): d is Delivery => d !== null));
    await deps.log.closeBatch(batch.id);
    await deps.afterClosed(made.filter((d): d is Delivery => d !== null));
  }
  return open.length;
}

/**
 * The throughput path of the attempt state machine (`attempt.ts`): a consumer batch's first attempts with the store
 * called per batch, not per delivery. One batch record leases attempt 1 of every new delivery (`claimFirstAttempts`
 * — the claim phase for the whole batch), each delivery is sent and recorded by the machine's own phases (the
 * store gathers concurrent outcomes into one write), the outcomes are published together, and the batch is closed.
 * A batch left open (its instance stopped) is finished by `recoverBatches` once its lease has ended.
 */
export function createFirstAttempts(deps: FirstAttemptsDeps) {
  return {
    firstAttempts: (wanted: Delivery[], options?: Options) => firstAttempts(deps, wanted, options),
    recoverBatches: (limitBatches: number) => recoverBatches(deps, limitBatches),
  };
}

export type FirstAttempts = ReturnType<typeof createFirstAttempts>;
