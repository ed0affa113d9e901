import type { MongoDb } from '@formgate/store/mongo';
import type { OrgsStores } from '../orgs-stores.ts';
import { createMongoAuditStore } from './audit.ts';
import { createMongoOrgSpamStore } from './org-spam.ts';
import { createMongoOrgsStore } from './orgs.ts';

export { migrateMongoOrgs, orgsMongoMigrations } from './migrations/index.ts';
export { createMongoAuditStore, createMongoOrgSpamStore, createMongoOrgsStore };

/** The orgs service's stores on one database, migrated first (`migrateMongoOrgs`). */
export function createMongoOrgsStores(
  db: MongoDb,
  options: { now?: () => number; reconcileMs?: number } = {},
): OrgsStores {
  return {
    orgs: createMongoOrgsStore(db),
    audit: createMongoAuditStore(db),
    spam: createMongoOrgSpamStore(db, options),
  };
}
