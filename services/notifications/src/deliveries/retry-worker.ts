import { type Clock, createRelayLoop, type Logger, mapLimit } from '@formgate/kit';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { DeliveryStore } from './delivery-store.ts';

const DUE_BATCH = 20;
const PUBLISH_BATCH = 100;

/**
 * The retry worker: every `intervalMs`, makes the attempts that are due (scheduled retries, and first attempts
 * whose claimer stopped before finishing), releases deferred emails whose quota allows again (`release`, see
 * `deferred-releaser.ts`), then publishes outcomes and deferrals not yet published. All its state is in the
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
    onError: (err) => deps.logger.warn({ err }, 'delivery retry pass failed; next pass soon'),
    pass: async () => {
      const due = await deps.store.listDue(deps.clock.now().toISOString(), DUE_BATCH);
      const made = (await mapLimit(due, 4, (d) => deps.runner.attempt(d))).filter((d) => d !== null);
      const released = deps.release ? await deps.release() : false;
      const unpublished = await deps.store.listUnpublished(PUBLISH_BATCH);
      await deps.runner.publishOutcomes(unpublished);
      // Another pass at once only when this one made progress on a full batch.
      return (due.length === DUE_BATCH && made.length > 0) || released || unpublished.length === PUBLISH_BATCH;
    },
  });
}
