import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { MailPolicy, RecipientStore } from '../src/store/index.ts';

export interface RecipientStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<RecipientStore>;
}

const T0 = new Date('2026-11-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const POLICY: MailPolicy = { minIntervalMs: 60_000, maxPerWindow: 3, windowMs: 3_600_000 };
const LIMIT = { limit: 50 };

/** The guarantees of `RecipientStore` (see its JSDoc), checked against one adapter. */
export function runRecipientStoreContract(target: RecipientStoreTarget) {
  describeContract(`RecipientStore contract: ${target.name}`, target.skip, (it) => {
    let store: RecipientStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });
    const org = () => ({ orgId: `org_${randomUUID()}` });
    const add = (scope: { orgId: string }, email: string, createdAt = T0, verifiedAt: Date | null = null) =>
      store.add(scope, { id: randomUUID(), email, createdAt, verifiedAt }, LIMIT);

    it('stores addresses lower-cased, unique per organization case-insensitively, listed oldest first', async () => {
      const a = org();
      const b = org();
      const first = await add(a, 'Ann@Example.COM', at(1000));
      expect(first).toMatchObject({ outcome: 'created', recipient: { email: 'ann@example.com', verified: false } });
      expect(await add(a, 'bob@example.com', at(0))).toMatchObject({ outcome: 'created' });
      const again = await add(a, 'ANN@example.com', at(5000));
      expect(again).toEqual({ outcome: 'exists', recipient: first.outcome === 'created' && first.recipient });
      expect(await add(b, 'ann@example.com')).toMatchObject({ outcome: 'created', recipient: { orgId: b.orgId } });
      expect((await store.list(a)).map((r) => r.email)).toEqual(['bob@example.com', 'ann@example.com']);
      expect(await store.list(b)).toHaveLength(1);
      const created = first.outcome === 'created' ? first.recipient : null;
      expect(await store.get(a, created?.id ?? '')).toEqual(created);
      expect(await store.get(b, created?.id ?? '')).toBeNull();
      expect(created?.createdAt.toISOString()).toBe(at(1000).toISOString());
    });

    it('creates nothing at the limit', async () => {
      const a = org();
      for (const n of [1, 2])
        await store.add(
          a,
          { id: randomUUID(), email: `${n}@x.example`, createdAt: T0, verifiedAt: null },
          { limit: 2 },
        );
      const third = await store.add(
        a,
        { id: randomUUID(), email: '3@x.example', createdAt: T0, verifiedAt: null },
        { limit: 2 },
      );
      expect(third).toEqual({ outcome: 'limit-reached' });
      expect(await store.list(a)).toHaveLength(2);
    });

    it('verifies only the address with that id and email, keeping the first verifiedAt', async () => {
      const a = org();
      const b = org();
      const added = await add(a, 'ann@example.com');
      const id = added.outcome === 'created' ? added.recipient.id : '';
      expect(await store.markVerified(a, { id, email: 'other@example.com', at: at(1) })).toBeNull();
      expect(await store.markVerified(b, { id, email: 'ann@example.com', at: at(1) })).toBeNull();
      expect(await store.listVerified(a.orgId)).toEqual([]);
      const verified = await store.markVerified(a, { id, email: 'Ann@example.com', at: at(2) });
      expect(verified).toMatchObject({ id, verified: true, verifiedAt: at(2) });
      expect(await store.markVerified(a, { id, email: 'ann@example.com', at: at(3) })).toMatchObject({
        verifiedAt: at(2),
      });
      expect(await store.markVerified(a, { id: randomUUID(), email: 'ann@example.com', at: at(3) })).toBeNull();
      expect(await store.listVerified(b.orgId)).toEqual([]);
    });

    it('lists only verified addresses for delivery, including ones added verified', async () => {
      const a = org();
      await add(a, 'pending@example.com');
      await add(a, 'Me@Example.com', T0, T0);
      const other = await add(a, 'later@example.com');
      const id = other.outcome === 'created' ? other.recipient.id : '';
      await store.markVerified(a, { id, email: 'later@example.com', at: at(5) });
      expect((await store.listVerified(a.orgId)).sort()).toEqual(['later@example.com', 'me@example.com']);
    });

    it('removes an address of its own organization only', async () => {
      const a = org();
      const b = org();
      const added = await add(a, 'ann@example.com', T0, T0);
      const id = added.outcome === 'created' ? added.recipient.id : '';
      expect(await store.remove(b, id)).toBe(false);
      expect(await store.list(a)).toHaveLength(1);
      expect(await store.remove(a, id)).toBe(true);
      expect(await store.remove(a, id)).toBe(false);
      expect(await store.list(a)).toEqual([]);
      expect(await store.listVerified(a.orgId)).toEqual([]);
    });

    it('allows verification mails by the policy, per organization and address, across removal', async () => {
      const a = org();
      const b = org();
      expect(await store.claimVerificationMail(a, 'ann@example.com', at(0), POLICY)).toEqual({ allowed: true });
      expect(await store.claimVerificationMail(a, 'ANN@example.com', at(30_000), POLICY)).toEqual({
        allowed: false,
        retryAt: at(60_000),
      });
      expect(await store.claimVerificationMail(b, 'ann@example.com', at(30_000), POLICY)).toEqual({ allowed: true });
      expect(await store.claimVerificationMail(a, 'bob@example.com', at(30_000), POLICY)).toEqual({ allowed: true });
      expect(await store.claimVerificationMail(a, 'ann@example.com', at(60_000), POLICY)).toEqual({ allowed: true });
      expect(await store.claimVerificationMail(a, 'ann@example.com', at(120_000), POLICY)).toEqual({ allowed: true });
      expect(await store.claimVerificationMail(a, 'ann@example.com', at(600_000), POLICY)).toEqual({
        allowed: false,
        retryAt: at(3_600_000),
      });
      expect(await store.claimVerificationMail(a, 'ann@example.com', at(3_600_000), POLICY)).toEqual({ allowed: true });
    });

    it('lets one of two concurrent claims pass', async () => {
      const a = org();
      const claims = await Promise.all([
        store.claimVerificationMail(a, 'ann@example.com', T0, POLICY),
        store.claimVerificationMail(a, 'ann@example.com', T0, POLICY),
        store.claimVerificationMail(a, 'ann@example.com', T0, POLICY),
      ]);
      expect(claims.filter((c) => c.allowed)).toHaveLength(1);
      await store.claimVerificationMail(a, 'bob@example.com', T0, POLICY);
      const later = await Promise.all([
        store.claimVerificationMail(a, 'bob@example.com', at(60_000), POLICY),
        store.claimVerificationMail(a, 'bob@example.com', at(60_000), POLICY),
      ]);
      expect(later.filter((c) => c.allowed)).toHaveLength(1);
    });

    it('keeps organization names, and purges an organization’s addresses, counters and name only', async () => {
      const a = org();
      const b = org();
      await store.setOrgName(a.orgId, 'Acme');
      await store.setOrgName(a.orgId, 'Acme Inc');
      await store.setOrgName(b.orgId, 'Other');
      expect(await store.getOrgName(a.orgId)).toBe('Acme Inc');
      await add(a, 'ann@example.com', T0, T0);
      await add(b, 'ann@example.com', T0, T0);
      await store.claimVerificationMail(a, 'bob@example.com', T0, POLICY);
      await store.claimVerificationMail(b, 'bob@example.com', T0, POLICY);
      await store.purgeOrganization(a);
      await store.purgeOrganization(a);
      expect(await store.list(a)).toEqual([]);
      expect(await store.listVerified(a.orgId)).toEqual([]);
      expect(await store.getOrgName(a.orgId)).toBeNull();
      expect(await store.claimVerificationMail(a, 'bob@example.com', at(1), POLICY)).toEqual({ allowed: true });
      expect(await store.listVerified(b.orgId)).toEqual(['ann@example.com']);
      expect(await store.getOrgName(b.orgId)).toBe('Other');
      expect(await store.claimVerificationMail(b, 'bob@example.com', at(1), POLICY)).toMatchObject({ allowed: false });
    });
  });
}
