import type { SqliteDb } from '@formgate/store/sqlite';
import type { OrgsStores } from '../orgs-stores.ts';
import { createSqliteAuditStore } from './audit.ts';
import { createSqliteOrgSpamStore } from './org-spam.ts';
import { createSqliteOrgsStore } from './orgs.ts';

export { migrateSqliteOrgs, orgsSqliteMigrations } from './migrations/index.ts';
export { createSqliteAuditStore, createSqliteOrgSpamStore, createSqliteOrgsStore };

/** The orgs service's stores on one SQLite file, migrated first (`migrateSqliteOrgs`). */
export function createSqliteOrgsStores(db: SqliteDb): OrgsStores {
  return { orgs: createSqliteOrgsStore(db), audit: createSqliteAuditStore(db), spam: createSqliteOrgSpamStore(db) };
}
