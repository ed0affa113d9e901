import { type Clock, createRelayLoop, type Logger, mapLimit } from '@formgate/kit';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { DeliveryStore } from './delivery-store.ts';

const DUE_BATCH = 20;
const PUBLISH_BATCH = 100;
/** Consumer batches whose lease ended while open (`recoverBatches`), finished per pass. */
const OPEN_BATCHES = 10;
/**
 * How long the outbox pass leaves a recorded outcome or deferral to whoever recorded it: the consumer, a resend,
 * the releaser and this worker publish their own and clear the mark. Only one still marked after this is the
 * pass's to finish (its recorder stopped, or the bus was down): publishing sooner published most events twice under
 * load, and each duplicate cost the store an update and the consumers (billing's ledgers) a write.
 */
export const OUTBOX_GRACE_MS = 60_000;

/**
 * The retry worker: every `intervalMs`, makes the attempts that are due (scheduled retries, and first attempts
 * whose claimer stopped before finishing), finishes consumer batches whose lease ended while open (ADR 61), releases deferred emails whose quota allows again (`release`, see
 * `deferred-releaser.ts`), publishing what those attempts recorded, then publishes the outcomes and deferrals that
 * others recorded and left unpublished for `OUTBOX_GRACE_MS` (the outbox pass). All its state is in the
 * store, so it resumes after a restart; with several instances the attempt claim decides who sends.
 */
export function createRetryWorker(deps: {
  store: DeliveryStore;
  runner: DeliveryRunner;
  clock: Clock;
  logger: Logger;
  /** Attempts deferred emails that may go now; true when it has more right away. */
  release?: () => Promise<boolean>;
  intervalMs?: number;
}) {
  return createRelayLoop({
    intervalMs: deps.intervalMs ?? 1_000,
    onError: (err) => {
      // The store may be down: a holder waiting to record an outcome is not to be taken for dead (ADR 66).
      deps.runner.storeFailed();
      deps.logger.warn({ err }, 'delivery retry pass failed; next pass soon');
    },
    pass: async () => {
      const due = await deps.store.listDue(deps.clock.now().toISOString(), DUE_BATCH);
      const made = (await mapLimit(due, 4, (d) => deps.runner.attempt(d))).filter((d) => d !== null);
      await deps.runner.publishOutcomes(made);
      const recovered = await deps.runner.recoverBatches(OPEN_BATCHES);
      const released = deps.release ? await deps.release() : false;
      const before = new Date(deps.clock.now().getTime() - OUTBOX_GRACE_MS).toISOString();
      const unpublished = await deps.store.listUnpublished(PUBLISH_BATCH, before);
      await deps.runner.publishOutcomes(unpublished);
      // Another pass at once only when this one made progress on a full batch.
      return (
        (due.length === DUE_BATCH && made.length > 0) ||
        recovered === OPEN_BATCHES ||
        released ||
        unpublished.length === PUBLISH_BATCH
      );
    },
  });
}
