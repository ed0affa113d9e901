import { openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSqliteBillingStores, migrateSqliteBilling } from '../src/store/sqlite/index.ts';

const schemaOf = (db: ReturnType<typeof openSqlite>) =>
  db.prepare(`SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`).all() as {
    type: string;
    name: string;
  }[];

describe('billing SQLite migrations', () => {
  it('bring an empty file to the latest shape once: every ledger table and index, one purged_orgs', async () => {
    const db = openSqlite(':memory:');
    expect(migrateSqliteBilling(db)).toEqual({ scope: 'billing', applied: [1], version: 1 });
    expect(schemaOf(db)).toEqual([
      { type: 'index', name: 'deferred_emails_by_org' },
      { type: 'index', name: 'held_by_org' },
      { type: 'index', name: 'stored_files_by_form' },
      { type: 'index', name: 'stored_files_by_org' },
      { type: 'table', name: 'deferred_emails' },
      { type: 'table', name: 'emails_usage_counters' },
      { type: 'table', name: 'emails_usage_entries' },
      { type: 'table', name: 'freed_forms' },
      { type: 'table', name: 'held_submissions' },
      { type: 'table', name: 'purged_orgs' },
      { type: 'table', name: 'schema_migrations' },
      { type: 'table', name: 'stored_files' },
      { type: 'table', name: 'subscription_events' },
      { type: 'table', name: 'subscriptions' },
      { type: 'table', name: 'usage_counters' },
      { type: 'table', name: 'usage_entries' },
    ]);
    expect(migrateSqliteBilling(db)).toEqual({ scope: 'billing', applied: [], version: 1 });
    // The stores build on it and write through every table.
    const stores = createSqliteBillingStores(db);
    const orgId = 'org-1';
    expect(await stores.usage.recordUsage([{ id: 's1', orgId, period: '2026-11' }], 'w')).toEqual([
      { orgId, period: '2026-11', used: 1 },
    ]);
    await stores.held.hold([{ id: 's2', orgId }]);
    await stores.storage.record([{ id: 's1', orgId, formId: 'f1', bytes: 10 }]);
    expect(await stores.held.countHeld({ orgId })).toBe(1);
    expect(await stores.storage.usedBytes({ orgId })).toBe(10);
    // One tombstone table: a purge through one store keeps every other store from recording the organization.
    await stores.subscriptions.purgeOrganization({ orgId });
    expect(await stores.usage.recordUsage([{ id: 's3', orgId, period: '2026-11' }], 'w')).toEqual([]);
  });
});
