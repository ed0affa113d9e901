import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OPERATOR_TOKEN_FILE = 'operator-token';

/** The operator token of a data dir: read from `<dataDir>/operator-token`, created (mode 0600) on first start. */
export function ensureOperatorToken(dataDir: string, fixed?: string): string {
  const file = join(dataDir, OPERATOR_TOKEN_FILE);
  if (fixed) return fixed;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const token = `fgo_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return token;
}
