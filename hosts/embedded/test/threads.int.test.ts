import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@formgate/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEmbeddedConfig } from '../src/config.ts';
import { startEmbedded } from '../src/start-embedded.ts';
import { SOURCE_THREAD_SCRIPTS } from '../src/threads/host-threads.ts';
import { SERVICES_THREAD_NICE } from '../src/threads/priority.ts';

describe('embedded mode: a thread that ends on its own (ADR 77)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-threads-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is reported as fatal, and /readyz stops answering 200 while the rest of the process stops cleanly', async () => {
    const fatal: Error[] = [];
    const app = await startEmbedded(
      loadEmbeddedConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
      {
        threadScripts: {
          log: SOURCE_THREAD_SCRIPTS.log,
          services: new URL('./fixtures/crashing-services-worker.ts', import.meta.url),
        },
        onFatal: (err) => fatal.push(err),
      },
    );
    try {
      const readyz = () => fetch(`http://127.0.0.1:${app.port}/readyz`).then((r) => r.status);
      await eventually(
        () => expect(fatal.map((e) => e.message)).toEqual(['services thread exited with code 1']),
        10_000,
      );
      await eventually(async () => expect(await readyz()).toBe(503), 10_000);
    } finally {
      await app.stop();
    }
  });
});

/** The nice value of every thread of this process (Linux: field 19 of `/proc/self/task/<tid>/stat`). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe.runIf(process.platform === 'linux')('embedded mode: thread priorities (ADR 78)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-nice-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('runs the services thread niced, and only it: the thread answering requests and the log thread keep theirs', async () => {
    const before = threadNices();
    const app = await startEmbedded(
      loadEmbeddedConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }),
      { threadScripts: SOURCE_THREAD_SCRIPTS },
    );
    try {
      const niced = threadNices().filter((n) => n === SERVICES_THREAD_NICE);
      expect(niced).toHaveLength(1);
      expect(Math.max(...before)).toBeLessThan(SERVICES_THREAD_NICE);
    } finally {
      await app.stop();
    }
  });
});
