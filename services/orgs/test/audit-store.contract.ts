import { describeContract } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { entry, type OrgsStoresTarget, org, useOrgsStores } from './orgs-fixtures.ts';

/** The guarantees of `AuditStore` (see its JSDoc), checked against one adapter. */
export function runAuditStoreContract(target: OrgsStoresTarget) {
  describeContract(`AuditStore contract: ${target.name}`, target.skip, (it) => {
    const stores = useOrgsStores(target);

    it('appends an audit entry once per id and returns it as stored', async () => {
      const a = org();
      const e = entry('2026-05-01T10:00:00.000Z');
      const system = entry('2026-05-01T11:00:00.000Z', { type: 'invitation.canceled', actor: null, data: {} });
      expect(await stores.audit.appendAudit(a, e)).toBe(true);
      expect(await stores.audit.appendAudit(a, e)).toBe(false);
      expect(await stores.audit.appendAudit(a, system)).toBe(true);
      expect(await stores.audit.listAudit(a, { limit: 10 })).toEqual([system, e]);
      expect(await stores.audit.listAudit(org(), { limit: 10 })).toEqual([]);
    });

    it('pages the audit log newest first with a keyset cursor, ties broken by id', async () => {
      const a = org();
      const same = '2026-02-01T00:00:00.000Z';
      const entries = [
        ...Array.from({ length: 5 }, () => entry(same)),
        entry('2026-03-01T00:00:00.000Z'),
        entry('2026-01-01T00:00:00.000Z'),
      ];
      for (const e of entries) await stores.audit.appendAudit(a, e);
      await stores.audit.appendAudit(org(), entry(same));
      const expected = [...entries]
        .sort((x, y) => (x.occurredAt === y.occurredAt ? (x.id < y.id ? 1 : -1) : x.occurredAt < y.occurredAt ? 1 : -1))
        .map((e) => e.id);
      const seen: string[] = [];
      let after: { occurredAt: string; id: string } | undefined;
      for (let i = 0; i < 4; i++) {
        const page = await stores.audit.listAudit(a, { limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.map((e) => e.id));
        const last = page.at(-1);
        after = last ? { occurredAt: last.occurredAt, id: last.id } : undefined;
      }
      expect(seen).toEqual(expected);
    });
  });
}
