import { readFileSync } from 'node:fs';
import { sleep } from './processes.ts';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system, seconds) a process has used so far; null without /proc or once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null; // not Linux, or the process is gone
  }
}

/** A process's resident set (`VmRSS` of `/proc/<pid>/status`, KiB); null without /proc or once it is gone. */
export function rssKb(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * Waits until every process in `pids` uses less than `maxShare` of a core over a `windowMs` window, so work left
 * over from one measurement (event consumers catching up, GC) does not run during the next one. Returns how
 * long that took (ms); gives up after `timeoutMs`. Without /proc it only waits one window.
 */
export async function waitForIdle(
  pids: number[],
  { maxShare = 0.1, windowMs = 300, timeoutMs = 60_000 } = {},
): Promise<number> {
  const start = performance.now();
  for (;;) {
    const before = pids.map(cpuSeconds);
    await sleep(windowMs);
    const after = pids.map(cpuSeconds);
    const busy = after.some((a, i) => {
      const b = before[i];
      return a !== null && b !== null && b !== undefined && (a - b) / (windowMs / 1000) > maxShare;
    });
    const elapsed = performance.now() - start;
    if (!busy || elapsed > timeoutMs) return elapsed;
  }
}
