import type { OrgScope } from '@formgate/contracts';
import type { OrgsStores } from '../store/orgs-stores.ts';

/**
 * Purges everything of one organization, in steps that can each be repeated (a purge cut short is finished by the
 * redelivered event): mark it deleted (reads stop seeing it, and a concurrent change of its settings or spam
 * defaults takes itself back), delete its audit log and spam defaults, then its record and settings.
 */
export async function purgeOrganization(stores: OrgsStores, scope: OrgScope): Promise<void> {
  await stores.orgs.beginPurge(scope);
  await stores.audit.purge(scope);
  await stores.spam.purge(scope);
  await stores.orgs.purge(scope);
}
