import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEmbeddedConfig } from '../src/config.ts';
import { startEmbedded } from '../src/start-embedded.ts';
import { SERVICES_THREAD_NICENESS } from '../src/threads/thread-priority.ts';

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

  it(`runs at niceness +${SERVICES_THREAD_NICENESS} while every other thread keeps the process's`, async () => {
    expect(process.platform).toBe('linux');
    const own = threadNiceness().get(process.pid) as number;
    const app = await startEmbedded(
      loadEmbeddedConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
    );
    try {
      // An answer that used the thread pool and the services thread (a dashboard read goes through it).
      expect((await fetch(`http://127.0.0.1:${app.port}/readyz`)).status).toBe(200);
      const lowered = [...threadNiceness().entries()].filter(([, nice]) => nice !== own);
      expect(lowered.map(([, nice]) => nice)).toEqual([Math.min(19, own + SERVICES_THREAD_NICENESS)]);
      expect(threadNiceness().get(process.pid)).toBe(own);
    } finally {
      await app.stop();
    }
  });
});
