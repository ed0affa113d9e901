import { createHash } from 'node:crypto';
import type { Logger } from '@formgate/kit';
import { parseEnvelope, symmetricDecrypt, symmetricEncrypt } from 'better-auth/crypto';

/**
 * A secret's version in better-auth's `secrets` (what its encrypted values are tagged with): derived from the value,
 * so the same secret keeps its version when a rotation moves it from current to previous.
 */
export const authSecretVersion = (value: string) =>
  Number.parseInt(createHash('sha256').update(value).digest('hex').slice(0, 12), 16);

/** better-auth's `secrets`: the current one first (it signs and encrypts), the previous one to decrypt only. */
export function authSecrets(current: string, previous?: string) {
  return [
    { version: authSecretVersion(current), value: current },
    ...(previous && previous !== current ? [{ version: authSecretVersion(previous), value: previous }] : []),
  ];
}

/** better-auth's key set for `symmetricEncrypt`/`symmetricDecrypt` (`(await auth.$context).secretConfig`). */
type SecretConfig = Parameters<typeof symmetricEncrypt>[0]['key'];

interface TwoFactorAdapter {
  findMany<T>(q: { model: string; limit?: number; offset?: number }): Promise<T[]>;
  update<T>(q: {
    model: string;
    where: { field: string; value: string }[];
    update: Record<string, unknown>;
  }): Promise<T | null>;
}

const ENCRYPTED_FIELDS = ['secret', 'backupCodes'] as const;
const PAGE = 500;

/**
 * After `AUTH_SECRET` was replaced (its old value kept as the previous one): every two-factor secret and backup code
 * list still encrypted with an older secret is encrypted again with the current one, so retiring the previous value
 * later locks nobody out. Runs at every start; a row already current is left alone. A row that no known secret
 * decrypts is logged and skipped (its user must set two-factor up again).
 */
export async function reencryptTwoFactorSecrets(
  adapter: TwoFactorAdapter,
  key: SecretConfig,
  logger: Logger,
): Promise<number> {
  if (typeof key === 'string') return 0;
  let changed = 0;
  for (let offset = 0; ; offset += PAGE) {
    const rows = await adapter.findMany<Record<string, string> & { id: string }>({
      model: 'twoFactor',
      limit: PAGE,
      offset,
    });
    for (const row of rows) {
      const update: Record<string, string> = {};
      try {
        for (const field of ENCRYPTED_FIELDS) {
          const value = row[field];
          if (!value || parseEnvelope(value)?.version === key.currentVersion) continue;
          update[field] = await symmetricEncrypt({ key, data: await symmetricDecrypt({ key, data: value }) });
        }
      } catch (err) {
        logger.error({ err, twoFactorId: row.id }, 'a two-factor secret decrypts with no known AUTH_SECRET');
        continue;
      }
      if (Object.keys(update).length === 0) continue;
      await adapter.update({ model: 'twoFactor', where: [{ field: 'id', value: row.id }], update });
      changed++;
    }
    if (rows.length < PAGE) return changed;
  }
}
