import { type Clock, createRelayLoop, type Logger, mapLimit } from '@formgate/kit';
import type { DeliveryLog, OutcomeOutbox } from '../store/index.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import { DELIVERY_TUNING } from './tuning.ts';

const T = DELIVERY_TUNING;

/**
 * The retry worker: every `retryPassMs`, makes the attempts that are due (`listDue`: scheduled retries, and first
 * attempts whose claimer stopped before finishing) through the attempt state machine, finishes consumer batches
 * whose lease ended while open, releases deferred emails their quota allows again (`release`), publishing what
 * those attempts recorded, then publishes the outcomes and deferrals that others recorded and left unpublished for
 * `outboxGraceMs` (the outbox pass). All its state is in the store, so it resumes after a restart; with several
 * instances the attempt claim decides who sends.
 */
export function createRetryWorker(deps: {
  stores: { log: DeliveryLog; outbox: OutcomeOutbox };
  runner: DeliveryRunner;
  clock: Clock;
  logger: Logger;
  /** Attempts deferred emails that may go now; true when it has more right away. */
  release?: () => Promise<boolean>;
  intervalMs?: number;
}) {
  const { log, outbox } = deps.stores;
  return createRelayLoop({
    intervalMs: deps.intervalMs ?? T.retryPassMs,
    onError: (err) => {
      // The store may be down: a holder waiting to record an outcome is not to be taken for dead (ADR 66).
      deps.runner.storeFailed();
      deps.logger.warn({ err }, 'delivery retry pass failed; next pass soon');
    },
    pass: async () => {
      const due = await log.listDue(deps.clock.now().toISOString(), T.duePerPass);
      const made = (await mapLimit(due, T.retriesAtOnce, (d) => deps.runner.attempt(d))).filter((d) => d !== null);
      await deps.runner.publishOutcomes(made);
      const recovered = await deps.runner.recoverBatches(T.openBatchesPerPass);
      const released = deps.release ? await deps.release() : false;
      const before = new Date(deps.clock.now().getTime() - T.outboxGraceMs).toISOString();
      const unpublished = await outbox.listUnpublished(T.unpublishedPerPass, before);
      await deps.runner.publishOutcomes(unpublished);
      // Another pass at once only when this one made progress on a full batch.
      return (
        (due.length === T.duePerPass && made.length > 0) ||
        recovered === T.openBatchesPerPass ||
        released ||
        unpublished.length === T.unpublishedPerPass
      );
    },
  });
}
