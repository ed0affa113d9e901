import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEmbeddedConfig } from '../src/config.ts';
import { startEmbedded } from '../src/start-embedded.ts';

/** Each thread of this process with its niceness (`/proc/self/task/<tid>/stat`, field 19). */
function threadNiceness(): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // After the name in parentheses: state is field 3, niceness field 19.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    threads.set(Number(tid), Number(fields[16]));
  }
  return threads;
}

describe('embedded mode: the services thread yields to the answer’s threads (ADR 84)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-priority-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it.each([
    [15, 'by default'],
    [4, 'as configured'],
  ])('runs %i lower %s while every other thread keeps the process’s', async (by, how) => {
    expect(process.platform).toBe('linux');
    const own = threadNiceness().get(process.pid) as number;
    const app = await startEmbedded(
      loadEmbeddedConfig({
        DATA_DIR: join(dataDir, String(by)),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        // The suite runs with 0 (vitest.config.ts); unset is the default.
        SERVICES_THREAD_NICENESS: how === 'by default' ? undefined : String(by),
      }),
    );
    try {
      // An answer that used the thread pool and the services thread (a dashboard read goes through it).
      expect((await fetch(`http://127.0.0.1:${app.port}/readyz`)).status).toBe(200);
      const lowered = [...threadNiceness().entries()].filter(([, nice]) => nice !== own);
      expect(lowered.map(([, nice]) => nice)).toEqual([Math.min(19, own + by)]);
      expect(threadNiceness().get(process.pid)).toBe(own);
    } finally {
      await app.stop();
    }
  });
});
