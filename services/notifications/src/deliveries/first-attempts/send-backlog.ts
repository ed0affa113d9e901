import type { Logger } from '@formgate/kit';

/**
 * The first attempts a consumer handed on (ADR 64): claimed durably by its handler, which returned (so the bus
 * committed the batch) while they are sent. Bounded in deliveries: a handler waits for `room` before it claims more,
 * so that the backlog of claimed and unsent attempts (sent only after the lease if the instance stops) stays a few
 * seconds of load. `drain` waits for all of them: on stop, and in tests that call a handler directly.
 */
export function createSendBacklog(limit: number, logger: Logger) {
  let size = 0;
  const running = new Set<Promise<void>>();
  let waiting: (() => void)[] = [];
  return {
    /** Resolves once fewer than `limit` deliveries are in the backlog. */
    async room(): Promise<void> {
      while (size >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    /** Counts `deliveries` until `sent` settles; a failure is logged (the batch record is the retry worker's). */
    add(deliveries: number, sent: Promise<void>): void {
      size += deliveries;
      const settled = sent
        .catch((err: unknown) =>
          logger.error(
            { err },
            'first attempts of a batch did not finish: the retry worker finishes them after the lease',
          ),
        )
        .finally(() => {
          size -= deliveries;
          running.delete(settled);
          const woken = waiting;
          waiting = [];
          for (const wake of woken) wake();
        });
      running.add(settled);
    },
    async drain(): Promise<void> {
      while (running.size > 0) await Promise.all(running);
    },
    get size() {
      return size;
    },
  };
}

export type SendBacklog = ReturnType<typeof createSendBacklog>;
