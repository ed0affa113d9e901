import type { AuditStore } from './audit-store.ts';
import type { OrgSpamStore } from './org-spam-store.ts';
import type { OrgsStore } from './orgs-store.ts';

/** The orgs service's ports, each injected on its own; `createSqliteOrgsStores` / `createMongoOrgsStores` build them. */
export interface OrgsStores {
  orgs: OrgsStore;
  audit: AuditStore;
  spam: OrgSpamStore;
}
