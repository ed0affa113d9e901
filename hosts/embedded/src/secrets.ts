import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A secret kept in `dataDir/<name>` (mode 0600), generated on first boot, so sessions survive restarts of the
 * embedded host without the user configuring anything.
 */
export function ensureSecretFile(dataDir: string, name: string, configured?: string): string {
  if (configured) return configured;
  const file = join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  }
}
