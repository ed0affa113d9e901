import { describe, expect, it } from 'vitest';
import { createSqliteNotificationStores } from '../src/store/sqlite/index.ts';
import { runNotificationStoresContract } from './delivery-log.contract.ts';
import { migratedSqlite } from './notifications-db.ts';

runNotificationStoresContract({ name: 'sqlite', create: async () => createSqliteNotificationStores(migratedSqlite()) });

describe('the SQLite reads of no-store submissions’ settling (issue 31)', () => {
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
  });
});
