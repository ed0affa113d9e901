import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The deployment secrets embedded mode keeps in `DATA_DIR` (one file each, mode 0600), generated on first boot, and
 * which `formgate secrets rotate` replaces (ADR 50). The environment variable of each overrides its file.
 */
export const EMBEDDED_SECRETS = {
  'auth-secret': 'AUTH_SECRET',
  'operator-token': 'OPERATOR_TOKEN',
  'file-link-secret': 'FILE_LINK_SECRET',
  'notifications-link-secret': 'NOTIFICATIONS_LINK_SECRET',
  'ingest-secret': 'INGEST_SECRET',
  'privacy-key': 'PRIVACY_KEY',
} as const;
export type EmbeddedSecretName = keyof typeof EMBEDDED_SECRETS;

/** A fresh secret: 32 random bytes, base64url (43 characters). */
export const newSecretValue = () => randomBytes(32).toString('base64url');

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
};

/** Writes `value` to `file` through a temporary file and a rename: a reader sees the old value or the new one. */
function writeAtomically(file: string, value: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${value}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The secret in `dataDir/<name>`, generated (mode 0600) if absent, so sessions survive restarts of the embedded
 * host without the user configuring anything. `configured` (the environment's value) wins.
 */
export function ensureSecretFile(dataDir: string, name: string, configured?: string): string {
  if (configured) return configured;
  const file = join(dataDir, name);
  const existing = read(file);
  if (existing) return existing;
  mkdirSync(dataDir, { recursive: true });
  const secret = newSecretValue();
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process wrote it first: theirs counts.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return ensureSecretFile(dataDir, name);
    throw err;
  }
}

/** The replaced value kept in `dataDir/<name>.previous` during a rotation; `undefined` when there is none. */
export function readPreviousSecret(dataDir: string, name: string): string | undefined {
  return read(join(dataDir, `${name}.previous`));
}

/**
 * Rotates `dataDir/<name>`: the current value moves to `<name>.previous` (replacing an older previous value), a new
 * random value becomes current. Each file is replaced by an atomic rename, previous first, so a process starting in
 * between sees the old value twice, never a missing one. Returns whether a value was kept as the previous one (a
 * secret never generated has none to keep). Values are never returned: nothing here can print them.
 */
export function rotateSecretFile(dataDir: string, name: string): { keptPrevious: boolean } {
  const file = join(dataDir, name);
  const current = read(file);
  mkdirSync(dataDir, { recursive: true });
  if (current) writeAtomically(`${file}.previous`, current);
  writeAtomically(file, newSecretValue());
  return { keptPrevious: current !== undefined };
}

/** Removes `dataDir/<name>.previous` once its window is over: what it signed stops verifying. Whether one existed. */
export function retirePreviousSecret(dataDir: string, name: string): boolean {
  const file = join(dataDir, `${name}.previous`);
  const existed = read(file) !== undefined;
  rmSync(file, { force: true });
  return existed;
}
