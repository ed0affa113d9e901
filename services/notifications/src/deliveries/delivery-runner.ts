import type { EventPublisher } from '@formgate/bus';
import type { Ids } from '@formgate/kit';
import type { KeptMail } from '../email/kept-mail.ts';
import type { NotificationStores } from '../store/index.ts';
import { type AttemptDeps, createAttempts } from './attempt.ts';
import { createDurableOutcomes, type DurableOutcomesDeps } from './durable-outcomes.ts';
import { createFirstAttempts } from './first-attempts/first-attempts.ts';
import { createOutcomePublisher } from './publish-outcomes.ts';
import { createSubmissionSettler } from './settle-submission.ts';

export type DeliveryRunnerDeps = Omit<AttemptDeps, 'log' | 'deferred' | 'outcomes'> & {
  stores: Pick<NotificationStores, 'log' | 'outbox' | 'deferred' | 'views' | 'settlements'>;
  bus: EventPublisher;
  ids: Ids;
  /** The kept copies of sent mails, forgotten when a no-store submission is settled; none kept without. */
  keptMail?: KeptMail | undefined;
  /** How outcomes are written again after a store failure (tests shorten it): `durable-outcomes.ts`. */
  outcomeRetry?: Pick<DurableOutcomesDeps, 'retry' | 'graceMs'>;
};

/**
 * The delivery engine of one process: the attempt state machine (`attempt.ts`), its throughput path for consumer
 * batches (`first-attempts/`), the publication of outcomes, sharing one record of store failures (ADR 66), and the
 * settling of no-store submissions once their outcomes are published (`settle-submission.ts`).
 */
export function createDeliveryRunner(deps: DeliveryRunnerDeps) {
  const { stores, clock, logger } = deps;
  const outcomes = createDurableOutcomes({ clock, logger, random: deps.random, ...deps.outcomeRetry });
  const settler = createSubmissionSettler(deps);
  const publishOutcomes = createOutcomePublisher({
    ...deps,
    outbox: stores.outbox,
    afterPublished: settler.afterFinal,
  });
  const attempts = createAttempts({ ...deps, log: stores.log, deferred: stores.deferred, outcomes });
  const first = createFirstAttempts({
    ...deps,
    log: stores.log,
    attempts,
    publish: publishOutcomes,
    outcomes,
    afterClosed: settler.afterFinal,
  });
  return {
    /** Settles no-store submissions: after planning (`planned`), and by the sweep (`settle-sweep.ts`). */
    settler,
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
