import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the calling thread's CPU priority by `by` (capped at 19, the lowest). Linux only: there `setpriority` with
 * a thread's id sets that thread's niceness, and `/proc/thread-self` names the calling thread. Lowering needs no
 * privilege. Answers the thread's new niceness, or null when `by` is 0 or where it is not supported (the thread then
 * keeps the process's).
 */
export function lowerThreadPriority(by: number): number | null {
  if (by <= 0 || process.platform !== 'linux') return null;
  // `<pid>/task/<tid>`
  const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  if (!Number.isSafeInteger(tid) || tid <= 0) return null;
  const niceness = Math.min(19, getPriority(tid) + by);
  setPriority(tid, niceness);
  return niceness;
}
