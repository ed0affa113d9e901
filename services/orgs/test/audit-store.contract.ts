import { AUDIT_GENESIS, createAuditChainVerifier } from '@formgate/contracts';
import { describeContract } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { NewAuditEntry } from '../src/store/records.ts';
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
      const chained = (x: NewAuditEntry, seq: number) => ({
        ...x,
        seq,
        prevHash: expect.any(String),
        hash: expect.any(String),
      });
      expect(await stores.audit.listAudit(a, { limit: 10 })).toEqual([chained(system, 2), chained(e, 1)]);
      expect(await stores.audit.listAudit(org(), { limit: 10 })).toEqual([]);
    });

    it("chains each organization's entries by hash in the order they were appended", async () => {
      const [a, b] = [org(), org()];
      const entries = ['2026-05-03', '2026-05-01', '2026-05-02'].map((d) => entry(`${d}T00:00:00.000Z`));
      for (const e of entries) {
        await stores.audit.appendAudit(a, e);
        await stores.audit.appendAudit(b, entry(e.occurredAt));
      }
      const chain = await stores.audit.readChain(a, { afterSeq: 0, limit: 10 });
      expect(chain.map((e) => [e.id, e.seq])).toEqual(entries.map((e, i) => [e.id, i + 1]));
      expect(chain[0]?.prevHash).toBe(AUDIT_GENESIS);
      expect(chain[1]?.prevHash).toBe(chain[0]?.hash);
      expect((await stores.audit.readChain(a, { afterSeq: 1, limit: 1 })).map((e) => e.seq)).toEqual([2]);
      const verifier = createAuditChainVerifier(a.orgId);
      expect(await verifier.check(chain.map((e) => ({ ...e, orgId: a.orgId })))).toBe(true);
      expect(verifier.result()).toEqual({ ok: true, entries: 3, head: chain[2]?.hash });
      // Another organization's chain is its own, and does not verify as this one.
      const other = await stores.audit.readChain(b, { afterSeq: 0, limit: 10 });
      expect(other.map((e) => e.seq)).toEqual([1, 2, 3]);
      const wrong = createAuditChainVerifier(a.orgId);
      expect(await wrong.check(other.map((e) => ({ ...e, orgId: a.orgId })))).toBe(false);
    });

    it('never forks the chain when appends race: each entry gets its own place, the losers retry', async () => {
      const a = org();
      const entries = Array.from({ length: 8 }, (_, i) => entry(`2026-06-0${i + 1}T00:00:00.000Z`));
      const appendUntilDone = async (e: NewAuditEntry): Promise<boolean> => {
        for (;;) {
          try {
            return await stores.audit.appendAudit(a, e);
          } catch (err) {
            if ((err as { code?: string }).code !== 'ORG_AUDIT_CONTENDED') throw err;
          }
        }
      };
      // Each entry twice (a redelivery racing the first delivery).
      const results = await Promise.all([...entries, ...entries].map(appendUntilDone));
      expect(results.filter(Boolean)).toHaveLength(8);
      const chain = await stores.audit.readChain(a, { afterSeq: 0, limit: 20 });
      expect(chain.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(new Set(chain.map((e) => e.id))).toEqual(new Set(entries.map((e) => e.id)));
      const verifier = createAuditChainVerifier(a.orgId);
      await verifier.check(chain.map((e) => ({ ...e, orgId: a.orgId })));
      expect(verifier.result().ok).toBe(true);
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
