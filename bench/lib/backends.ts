import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './processes.ts';

const run = promisify(execFile);
const started = new Set<Backend>();

/** A backend started by the project's own `infra/local` script (no Docker), stopped by the same script. */
export interface Backend {
  /** The value of the script's last line, `KAFKA_BROKERS=…` / `MONGO_URL=…`. */
  value: string;
  stop(): Promise<void>;
}

/**
 * `bash infra/local/<script> install` (once, cached) then `start <port>`, with its run directory under `runBase`
 * so every bench run starts from empty topics and databases.
 */
export async function startBackend(script: 'kafka.sh' | 'ferretdb.sh', port: number, runBase: string) {
  const path = join(REPO_ROOT, 'infra/local', script);
  const env = { ...process.env, FORMGATE_RUN_DIR: runBase };
  await run('bash', [path, 'install'], { env, timeout: 15 * 60_000, maxBuffer: 16 << 20 });
  const { stdout } = await run('bash', [path, 'start', String(port)], { env, timeout: 5 * 60_000 });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  const backend: Backend = {
    value: last.slice(last.indexOf('=') + 1),
    stop: async () => {
      started.delete(backend);
      await run('bash', [path, 'stop', String(port)], { env, timeout: 60_000 });
    },
  };
  started.add(backend);
  return backend;
}

/** Stops every backend still running (on the way out after a failure or a signal). */
export async function stopAllBackends(): Promise<void> {
  await Promise.allSettled([...started].map((b) => b.stop()));
}
