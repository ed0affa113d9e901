import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How much less CPU priority the services thread has than the threads an answer waits for (ADR 84): `nice` +15,
 * a CFS weight of 36 against their 1024. Measured with the services thread at +0, +5, +10, +15 and +19 under the
 * same load: embedded ingest carried 16,000–16,700, 16,800–17,300, 17,500, 19,300–19,700 and 18,900–19,600
 * submissions/s.
 */
export const SERVICES_THREAD_NICENESS = 15;

/**
 * Lowers the calling thread's CPU priority by `by` (capped at 19, the lowest). Linux only: there `setpriority` with
 * a thread's id sets that thread's niceness, and `/proc/thread-self` names the calling thread. Lowering needs no
 * privilege. Answers the thread's new niceness, or null where it is not supported (it then runs as before).
 */
export function lowerThreadPriority(by: number): number | null {
  if (process.platform !== 'linux') return null;
  // `<pid>/task/<tid>`
  const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  if (!Number.isSafeInteger(tid) || tid <= 0) return null;
  const niceness = Math.min(19, getPriority(tid) + by);
  setPriority(tid, niceness);
  return niceness;
}
