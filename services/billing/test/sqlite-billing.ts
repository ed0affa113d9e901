import { type PlansFile, PlansFileSchema } from '@formgate/contracts';
import { planCatalog } from '@formgate/kit';
import { openSqlite, type SqliteDb } from '@formgate/store/sqlite';
import { createSqliteBillingStores, migrateSqliteBilling } from '../src/store/sqlite/index.ts';

/** A plans file of one plan, `small`, the default. */
export const onePlan = (submissionsPerMonth: number, emailsPerMonth: number) =>
  PlansFileSchema.parse({
    defaultPlan: 'small',
    plans: [{ id: 'small', name: 'Small', limits: { submissionsPerMonth, emailsPerMonth } }],
  });

/** A SQLite database (in memory by default) migrated to billing's latest shape. */
export function migratedBillingDb(file = ':memory:'): SqliteDb {
  const db = openSqlite(file);
  migrateSqliteBilling(db);
  return db;
}

/** Billing's stores on one migrated SQLite database and a catalog of `plans`, as the embedded host builds them. */
export function sqliteBillingDeps(db: SqliteDb, plans: PlansFile) {
  migrateSqliteBilling(db);
  return {
    ...createSqliteBillingStores(db),
    catalog: planCatalog(plans),
    billingEnabled: false,
  };
}
