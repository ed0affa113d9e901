import { randomUUID } from 'node:crypto';
import type { ContractSkip } from '@formgate/kit/testing';
import { afterAll, beforeAll } from 'vitest';
import type { OrgsStores } from '../src/store/orgs-stores.ts';
import type { NewAuditEntry } from '../src/store/records.ts';

/** One adapter's stores (`OrgsStores`: every port on one database; the spam defaults read the organizations). */
export interface OrgsStoresTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<OrgsStores>;
}

/**
 * For a contract suite: the target's stores, filled in by `beforeAll` and closed after the suite. Call inside the
 * suite's `describe`.
 */
export function useOrgsStores(target: OrgsStoresTarget): OrgsStores {
  const stores = {} as OrgsStores;
  beforeAll(async () => {
    Object.assign(stores, await target.create());
  });
  afterAll(async () => {
    for (const port of Object.values(stores)) await port.close();
  });
  return stores;
}

export const org = () => ({ orgId: `org_${randomUUID()}` });

export const entry = (occurredAt: string, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  id: randomUUID(),
  type: 'member.added',
  actor: { userId: 'u1', email: 'owner@example.com' },
  occurredAt,
  data: { memberId: 'm1', userId: 'u2', role: 'member' },
  ...overrides,
});
