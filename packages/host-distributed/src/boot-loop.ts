import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@formgate/kit';

/** The pause before the next attempt: 0.5 s doubling to 5 s, each drawn between half and all of it. */
export const BOOT_BACKOFF = { initialMs: 500, maxMs: 5_000 };
/** While a dependency stays away, one warning per this long (and one whenever what is awaited changes). */
export const WAIT_LOG_EVERY_MS = 10_000;
/** How long closing a failed attempt may take (a consumer leaving a group of a broker that is gone) before it is left. */
const UNDO_TIMEOUT_MS = 10_000;

/** `promise`, or a rejection once `ms` have passed. */
export const within = <T>(promise: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms).unref()),
  ]);

export interface BootLoopOptions<T> {
  /** One try at building and starting the process; resolves with what it built. */
  attempt(): Promise<T>;
  /** Closes what a failed attempt opened, before the pause. */
  undo(): Promise<void>;
  /** The dependency a failure waits for (`kafka`, `mongodb`), or undefined when it is not a dependency's. */
  awaited(err: unknown): Promise<string | undefined>;
  logger: Logger;
  backoff?: { initialMs: number; maxMs: number };
  now?: () => number;
}

export interface BootLoop<T> {
  /**
   * Attempts until one succeeds (resolves with its result), `stop()` is called (resolves undefined) or a failure is
   * not a dependency's (rejects with it).
   */
  run(): Promise<T | undefined>;
  /** Ends the loop now: the pause is cut short; an attempt in flight is left to the closing of what it uses. */
  stop(): void;
  /** What the last failed attempt waited for; undefined once the boot succeeded, or before any failure. */
  awaiting(): string | undefined;
}

/** Retries a process's boot while its dependencies are away, with a capped, jittered backoff and sparse warnings. */
export function createBootLoop<T>(opts: BootLoopOptions<T>): BootLoop<T> {
  const { initialMs, maxMs } = opts.backoff ?? BOOT_BACKOFF;
  const now = opts.now ?? Date.now;
  const abort = new AbortController();
  let awaiting: string | undefined;
  let lastWarning: { dependency: string; at: number } | undefined;

  const warn = (dependency: string, attempt: number, err: unknown) => {
    const at = now();
    if (lastWarning?.dependency === dependency && at - lastWarning.at < WAIT_LOG_EVERY_MS) return;
    lastWarning = { dependency, at };
    opts.logger.warn({ dependency, attempt, err }, `waiting for ${dependency} to start`);
  };
  /** After a failed attempt: true to try again, false when stopped; throws when the failure is not a dependency's. */
  const recover = async (attempt: number, err: unknown) => {
    const dependency = await opts.awaited(err);
    await within(opts.undo(), UNDO_TIMEOUT_MS).catch((undoErr: unknown) =>
      opts.logger.warn({ err: undoErr }, 'closing a failed boot attempt'),
    );
    if (dependency === undefined) throw err;
    awaiting = dependency;
    warn(dependency, attempt, err);
    const delay = Math.min(initialMs * 2 ** (attempt - 1), maxMs) * (0.5 + Math.random() / 2);
    await sleep(delay, undefined, { signal: abort.signal }).catch(() => {});
    return !abort.signal.aborted;
  };

  return {
    async run() {
      const began = now();
      for (let attempt = 1; !abort.signal.aborted; attempt++) {
        try {
          const result = await opts.attempt();
          if (attempt > 1) opts.logger.info({ attempts: attempt, ms: now() - began, awaited: awaiting }, 'boot done');
          awaiting = undefined;
          return result;
        } catch (err) {
          if (abort.signal.aborted || !(await recover(attempt, err))) return undefined;
        }
      }
      return undefined;
    },
    stop: () => abort.abort(),
    awaiting: () => awaiting,
  };
}
