import { type PlansFile, PlansFileSchema } from '@formgate/contracts';
import { planCatalog } from '@formgate/kit';
import type { SqliteDb } from '@formgate/store/sqlite';
import { createSqliteHeldStore } from '../src/store/sqlite-held-store.ts';
import { createSqliteStorageStore } from '../src/store/sqlite-storage-store.ts';
import { createSqliteSubscriptionStore } from '../src/store/sqlite-subscription-store.ts';
import { createSqliteUsageStore } from '../src/store/sqlite-usage-store.ts';

/** A plans file of one plan, `small`, the default. */
export const onePlan = (submissionsPerMonth: number, emailsPerMonth: number) =>
  PlansFileSchema.parse({
    defaultPlan: 'small',
    plans: [{ id: 'small', name: 'Small', limits: { submissionsPerMonth, emailsPerMonth } }],
  });

/** Billing's stores on one SQLite database and a catalog of `plans`, as the embedded host builds them. */
export function sqliteBillingDeps(db: SqliteDb, plans: PlansFile) {
  return {
    store: createSqliteUsageStore(db),
    emails: createSqliteUsageStore(db, { meter: 'emails' }),
    held: createSqliteHeldStore(db),
    deferredEmails: createSqliteHeldStore(db, { ledger: 'emails' }),
    subscriptions: createSqliteSubscriptionStore(db),
    storage: createSqliteStorageStore(db),
    catalog: planCatalog(plans),
    billingEnabled: false,
  };
}
