import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '@formgate/kit/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { loadEmbeddedConfig } from '../src/config.ts';
import { startEmbedded } from '../src/start-embedded.ts';
import { SOURCE_THREAD_SCRIPTS } from '../src/threads/host-threads.ts';

describe('embedded mode: a thread that ends on its own (ADR 77)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-threads-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is reported as fatal, and /readyz stops answering 200 while the rest of the process stops cleanly', async () => {
    const fatal: Error[] = [];
    const app = await startEmbedded(
      loadEmbeddedConfig({
        DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        SERVICES_THREAD_NICENESS: '0',
      }),
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
      expect(await readyz()).toBe(200);
      expect(fatal).toEqual([]);
      writeFileSync(join(dataDir, 'crash-now'), '');
      await eventually(
        () => expect(fatal.map((e) => e.message)).toEqual(['services thread exited with code 1']),
        30_000,
      );
      await eventually(async () => expect(await readyz()).toBe(503), 30_000);
    } finally {
      await app.stop();
    }
    // Starting two threads from source (TypeScript compiled in each) takes seconds on a loaded 2-core machine.
  }, 120_000);
});
