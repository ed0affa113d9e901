import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, systemClock, systemIds } from '@formgate/kit';
import { openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { accountEnv, accountSettings } from '../src/config.ts';
import { createAccounts } from '../src/create-accounts.ts';
import { createSqliteAccountsStore } from '../src/sqlite-accounts-store.ts';

const parse = (env: Record<string, string>) => z.object(accountEnv).parse(env);

describe('billing configuration', () => {
  it('has no Stripe without a key (an empty one included), and refuses a key without a webhook secret', () => {
    expect(accountSettings(parse({})).stripe).toBeUndefined();
    expect(
      accountSettings(parse({ STRIPE_SECRET_KEY: '', STRIPE_WEBHOOK_SECRET: '', PLANS_FILE: '' })).stripe,
    ).toBeUndefined();
    expect(() => accountSettings(parse({ STRIPE_SECRET_KEY: 'sk_test_x' }))).toThrow(/STRIPE_WEBHOOK_SECRET/);
    expect(
      accountSettings(
        parse({
          STRIPE_SECRET_KEY: 'sk_test_x',
          STRIPE_WEBHOOK_SECRET: 'whsec_x',
          STRIPE_API_URL: 'http://127.0.0.1:1',
        }),
      ).stripe,
    ).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', apiUrl: 'http://127.0.0.1:1' });
  });

  it('says once at boot, without keys, that billing is off and every organization is on the default plan', async () => {
    const lines: { level: number; msg: string }[] = [];
    const destination = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'fg-billing-off-'));
    const db = openSqlite(join(dir, 'auth.db'));
    const accounts = createAccounts({
      ...accountSettings(parse({})),
      store: createSqliteAccountsStore(db),
      bus: { publish: async () => {} },
      clock: systemClock,
      ids: systemIds,
      logger: createLogger({ level: 'info', name: 'accounts', destination }),
      mailer: { send: async () => ({ messageId: 'none' }), close: async () => {} },
      publicUrl: 'http://127.0.0.1:3999',
      secret: 'x'.repeat(40),
      trustedOrigins: ['http://127.0.0.1:3999'],
    });
    try {
      await accounts.start();
      const off = lines.filter((l) => l.msg.startsWith('billing is off'));
      expect(off).toEqual([
        expect.objectContaining({
          level: 30,
          msg: 'billing is off (no STRIPE_SECRET_KEY): every organization is on the default plan "free"',
        }),
      ]);
      const res = await accounts.authHandler(new Request('http://127.0.0.1:3999/api/auth/subscription/list'));
      expect(res.status).toBe(404);
    } finally {
      await accounts.stop();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
