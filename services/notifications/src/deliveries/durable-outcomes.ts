import { setTimeout as sleep } from 'node:timers/promises';
import { classifyFailure } from '@formgate/contracts';
import type { Clock, Logger } from '@formgate/kit';
import { DELIVERY_TUNING } from './tuning.ts';

export interface DurableOutcomesDeps {
  clock: Clock;
  logger: Logger;
  random?: () => number;
  /** `DELIVERY_TUNING.recordRetryFirstMs` and `recordRetryMaxMs` unless given. */
  retry?: { firstMs: number; maxMs: number };
  /** `DELIVERY_TUNING.takeoverGraceMs` unless given. */
  graceMs?: number;
}

/**
 * What follows a send that happened: its outcome is the one thing that stops the lease from sending it again, so
 * the process that holds it writes it until the store takes it (ADR 66). Only a dead process leaves a send without
 * outcome; `stop` (shutdown) gives up on what is still unwritten, which its lease then finds as after a crash.
 *
 * The other half of that promise: a claim whose lease ended is taken over (`mayTakeOver`) only once the store has
 * answered for `DELIVERY_TUNING.takeoverGraceMs` since the last failure this instance saw (`failed`), its outcome
 * writes' or the retry worker's, so that a holder that outlived an outage longer than the lease writes before anyone
 * resends.
 */
export function createDurableOutcomes(deps: DurableOutcomesDeps) {
  const random = deps.random ?? Math.random;
  const { firstMs, maxMs } = deps.retry ?? {
    firstMs: DELIVERY_TUNING.recordRetryFirstMs,
    maxMs: DELIVERY_TUNING.recordRetryMaxMs,
  };
  const graceMs = deps.graceMs ?? DELIVERY_TUNING.takeoverGraceMs;
  const stopping = new AbortController();
  let lastFailure = Number.NEGATIVE_INFINITY;

  const failed = () => {
    lastFailure = deps.clock.now().getTime();
  };
  const mayTakeOver = () => deps.clock.now().getTime() - lastFailure >= graceMs;
  /** Capped exponential backoff with jitter (half to all of the step), so waiting holders do not write in step. */
  const backoff = (failures: number) => Math.min(maxMs, firstMs * 2 ** (failures - 1)) * (0.5 + random() / 2);

  /**
   * Runs `write` until it resolves; resolves with its value. Rejects only when retrying cannot help (a permanent
   * failure: a bug, which the lease then covers) or once `stop` was called. `context` names the outcome in logs.
   */
  async function retryUntilRecorded<T>(write: () => Promise<T>, context: Record<string, unknown>): Promise<T> {
    for (let failures = 0; ; ) {
      try {
        const value = await write();
        if (failures > 0) deps.logger.info({ ...context, failures }, 'outcome recorded once the store answered');
        return value;
      } catch (err) {
        if (classifyFailure(err) === 'permanent' || stopping.signal.aborted) throw err;
        failed();
        failures += 1;
        // Once per outcome: an outage fails every try of every waiting outcome.
        if (failures === 1) deps.logger.warn({ err, ...context }, 'recording an outcome failed; retrying until it is');
        await sleep(backoff(failures), undefined, { signal: stopping.signal }).catch(() => {});
        if (stopping.signal.aborted) throw err;
      }
    }
  }

  return {
    retryUntilRecorded,
    failed,
    mayTakeOver,
    /** Shutdown: outcomes still unwritten are given up at their next failure (their lease finds them). */
    stop: () => stopping.abort(),
  };
}

export type DurableOutcomes = ReturnType<typeof createDurableOutcomes>;
