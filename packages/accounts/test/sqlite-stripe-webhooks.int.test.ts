import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite } from '@formgate/store/sqlite';
import { createSqliteAccountsStore } from '../src/sqlite-accounts-store.ts';
import { runStripeWebhookContract } from './stripe-webhooks.contract.ts';

runStripeWebhookContract({
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'fg-stripe-'));
    const db = openSqlite(join(dir, 'auth.db'));
    return {
      store: createSqliteAccountsStore(db),
      async close() {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});
