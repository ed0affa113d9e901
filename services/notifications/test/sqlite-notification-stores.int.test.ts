import { openSqlite, runSqliteMigrations } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSqliteWrites } from '../src/store/sqlite/deliveries-schema.ts';
import { createSqliteDeliveryLog } from '../src/store/sqlite/delivery-log.ts';
import {
  createSqliteNotificationStores,
  migrateSqliteNotifications,
  SQLITE_MIGRATIONS,
} from '../src/store/sqlite/index.ts';
import { delivery, runNotificationStoresContract } from './delivery-log.contract.ts';
import { migratedSqlite } from './notifications-db.ts';

runNotificationStoresContract({ name: 'sqlite', create: async () => createSqliteNotificationStores(migratedSqlite()) });

describe('the SQLite reads of no-store submissions’ settling (issue 31) and of deleted submissions’ tombstones', () => {
  it('are index-backed, the sweep’s without a sort', () => {
    const db = migratedSqlite();
    // The statements the stores prepare, as they prepare them.
    const prepared: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    createSqliteNotificationStores(db);
    const planOf = (match: RegExp) => {
      const sql = prepared.find((s) => match.test(s));
      if (!sql) throw new Error(`no statement matches ${match}`);
      const params = Array.from(sql.matchAll(/\?/g), () => 'x');
      return (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    };

    const due = planOf(/FROM submission_settlements WHERE settled_at IS NULL/);
    expect(due.join('; ')).toMatch(/USING INDEX submission_settlements_due \(check_at<\?\)/);
    expect(due.join('; ')).not.toMatch(/TEMP B-TREE/);
    expect(planOf(/FROM submission_settlements WHERE submission_id = \?/).join('; ')).toMatch(
      /USING PRIMARY KEY \(submission_id=\?\)/,
    );
    const pending = planOf(/event_pending = 1 OR d\.deferral_pending = 1/).join('; ');
    expect(pending).toMatch(/SEARCH d USING INDEX deliveries_submission \(submission_id=\?\)/);
    expect(pending).toMatch(/SEARCH b USING PRIMARY KEY \(id=\?\)/);
    expect(pending).not.toMatch(/SCAN/);

    // Deleted submissions' tombstones: a batch's ids by key, an organization's purge by its index.
    const gone = planOf(/FROM gone_submissions WHERE submission_id IN/).join('; ');
    expect(gone).toMatch(/SEARCH gone_submissions USING PRIMARY KEY \(submission_id=\?\)/);
    expect(gone).not.toMatch(/SCAN gone_submissions/);
    expect(planOf(/DELETE FROM gone_submissions WHERE org_id = \?/).join('; ')).toMatch(
      /SEARCH gone_submissions USING (COVERING )?INDEX gone_submissions_org \(org_id=\?\)/,
    );
  });
});

describe('SQLite migration 5 (deleted submissions’ tombstones)', () => {
  it('upgrades a store of the previous shape, keeping what it held', async () => {
    const db = openSqlite(':memory:');
    runSqliteMigrations(db, 'notifications', SQLITE_MIGRATIONS.slice(0, 4));
    const before = delivery();
    // Only the delivery log: the stores together need the new table.
    await createSqliteDeliveryLog(db, createSqliteWrites(db)).planDeliveries([before]);

    expect(migrateSqliteNotifications(db)).toEqual({ scope: 'notifications', applied: [5], version: 5 });
    const stores = createSqliteNotificationStores(db);
    expect(await stores.log.getDelivery({ orgId: before.orgId }, before.id)).toMatchObject({
      id: before.id,
      target: before.target,
    });
    const gone = { orgId: before.orgId, submissionId: before.submissionId };
    await stores.gone.markGone({ ...gone, goneAt: before.createdAt });
    expect(await stores.gone.listGone([gone])).toEqual(new Set([gone.submissionId]));
    expect(migrateSqliteNotifications(db)).toEqual({ scope: 'notifications', applied: [], version: 5 });
  });
});
