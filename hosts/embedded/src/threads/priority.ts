import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * The services thread's nice value (ADR 78): projections, billing, notifications and the API's reads yield the cores
 * to the thread answering `/f/*` and to the log thread its answers wait for. Under a burst they fall behind for its
 * length and catch up after it; a nice of 10 still gives them about a tenth of a busy core, so they never stop.
 */
export const SERVICES_THREAD_NICE = 10;

/**
 * Gives the calling thread (not the whole process) the nice value `nice`. Linux keeps one per thread, named by its
 * thread id (`/proc/thread-self`); elsewhere, or where the call is refused, the thread keeps the process's and the
 * reason is returned.
 */
export function niceThisThread(nice: number): string | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
    if (!Number.isInteger(tid) || tid <= 0) return 'no thread id in /proc/thread-self';
    setPriority(tid, nice);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
