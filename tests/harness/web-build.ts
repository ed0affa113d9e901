import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A fresh production build of `web/` in a new temporary directory (for `WEB_DIR`); the caller removes it. */
export async function buildWeb(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'fg-web-dist-'));
  await run('pnpm', ['exec', 'vite', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: join(import.meta.dirname, '../../web'),
  });
  return outDir;
}
