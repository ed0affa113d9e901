import { resolve } from 'node:path';
import { packagesLoadedBy } from '@formgate/kit/testing';
import { describe, expect, it } from 'vitest';

/** Resolved from this package, which depends on every service, accounts and the gateway. */
const HOST = resolve(import.meta.dirname, '..');
const MONGO_OR_KAFKA = ['mongodb', 'mongoose', 'kafkajs'];

// Each test starts Node processes (tsx): seconds on a loaded 2-core machine, beyond the unit default of 5 s.
describe('what embedded mode loads', { timeout: 60_000 }, () => {
  it('the embedded host (SQLite and the embedded log only) loads no MongoDB or Kafka driver', async () => {
    const loaded = await packagesLoadedBy('@formgate/host-embedded', HOST);
    expect(loaded).toContain('better-sqlite3');
    expect(loaded.filter((name) => MONGO_OR_KAFKA.includes(name))).toEqual([]);
  });

  it('the Mongo adapters of forms, notifications and accounts load from their /mongo subpaths', async () => {
    const subpaths = ['@formgate/forms/mongo', '@formgate/notifications/mongo', '@formgate/accounts/mongo'];
    const loaded = await Promise.all(subpaths.map((entry) => packagesLoadedBy(entry, HOST)));
    expect(loaded.map((names) => names.includes('mongodb'))).toEqual([true, true, true]);
  });
});
