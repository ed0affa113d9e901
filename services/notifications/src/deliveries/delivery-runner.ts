import type { EventPublisher } from '@formgate/bus';
import type { Ids } from '@formgate/kit';
import type { NotificationStores } from '../store/index.ts';
import { type AttemptDeps, createAttempts } from './attempt.ts';
import { createDurableOutcomes, type DurableOutcomesDeps } from './durable-outcomes.ts';
import { createFirstAttempts } from './first-attempts/first-attempts.ts';
import { createOutcomePublisher } from './publish-outcomes.ts';

export type DeliveryRunnerDeps = Omit<AttemptDeps, 'log' | 'deferred' | 'outcomes'> & {
  stores: Pick<NotificationStores, 'log' | 'outbox' | 'deferred'>;
  bus: EventPublisher;
  ids: Ids;
  /** How outcomes are written again after a store failure (tests shorten it): `durable-outcomes.ts`. */
  outcomeRetry?: Pick<DurableOutcomesDeps, 'retry' | 'graceMs'>;
};

/**
 * The delivery engine of one process: the attempt state machine (`attempt.ts`), its throughput path for consumer
 * batches (`first-attempts/`), and the publication of outcomes, sharing one record of store failures (ADR 66).
 */
export function createDeliveryRunner(deps: DeliveryRunnerDeps) {
  const { stores, clock, logger } = deps;
  const outcomes = createDurableOutcomes({ clock, logger, random: deps.random, ...deps.outcomeRetry });
  const publishOutcomes = createOutcomePublisher({ ...deps, outbox: stores.outbox });
  const attempts = createAttempts({ ...deps, log: stores.log, deferred: stores.deferred, outcomes });
  const first = createFirstAttempts({ ...deps, log: stores.log, attempts, publish: publishOutcomes, outcomes });
  return {
    attempt: attempts.attempt,
    firstAttempts: first.firstAttempts,
    recoverBatches: first.recoverBatches,
    publishOutcomes,
    /** A store call failed (the retry worker's): no lease is taken over for a while (`durable-outcomes.ts`). */
    storeFailed: outcomes.failed,
    /** Shutdown: outcomes still unwritten are left to their lease, as after a crash. */
    stop: outcomes.stop,
  };
}

export type DeliveryRunner = ReturnType<typeof createDeliveryRunner>;
