import { randomUUID } from 'node:crypto';
import { describeContract } from '@formgate/kit/testing';
import { beforeAll, expect } from 'vitest';
import type { GoneSubmission, NotificationStores } from '../src/store/index.ts';
import type { NotificationStoresTarget } from './delivery-log.contract.ts';

const gone = (over: Partial<GoneSubmission> = {}): GoneSubmission => ({
  orgId: `org_${randomUUID()}`,
  submissionId: randomUUID(),
  goneAt: '2026-11-20T10:00:00.000Z',
  ...over,
});

/** The guarantees of `GoneSubmissions` (see its JSDoc), checked against one adapter's stores. */
export function runGoneSubmissionsContract(target: NotificationStoresTarget) {
  describeContract(`GoneSubmissions contract: ${target.name}`, target.skip, (it) => {
    let stores: NotificationStores;
    beforeAll(async () => {
      stores = await target.create();
    });

    it('answers, of the submissions asked, those marked gone, each for its own organization only', async () => {
      const [a, b] = [gone(), gone()];
      const never = { orgId: a.orgId, submissionId: randomUUID() };
      expect(await stores.gone.listGone([a, b, never])).toEqual(new Set());
      await stores.gone.markGone(a);
      await stores.gone.markGone(b);
      expect(await stores.gone.listGone([a, never, b])).toEqual(new Set([a.submissionId, b.submissionId]));
      expect(await stores.gone.listGone([never])).toEqual(new Set());
      // Another organization's tombstone of the id hides nothing.
      expect(await stores.gone.listGone([{ orgId: b.orgId, submissionId: a.submissionId }])).toEqual(new Set());
      expect(await stores.gone.listGone([])).toEqual(new Set());
    });

    it('marks a submission gone once, whoever marks it again, at once or later', async () => {
      const a = gone();
      await Promise.all(Array.from({ length: 6 }, (_, i) => stores.gone.markGone({ ...a, goneAt: `2026-11-2${i}` })));
      await stores.gone.markGone({ ...a, goneAt: '2027-01-01T00:00:00.000Z' });
      expect(await stores.gone.listGone([a])).toEqual(new Set([a.submissionId]));
    });

    it('answers a batch’s worth of submissions in one call', async () => {
      const orgId = `org_${randomUUID()}`;
      const asked = Array.from({ length: 150 }, () => gone({ orgId }));
      const marked = asked.filter((_, i) => i % 3 === 0);
      for (const g of marked) await stores.gone.markGone(g);
      expect(await stores.gone.listGone(asked)).toEqual(new Set(marked.map((g) => g.submissionId)));
    });

    it('purges an organization’s tombstones and no other’s; again is harmless', async () => {
      const orgId = `org_${randomUUID()}`;
      const mine = [gone({ orgId }), gone({ orgId })];
      const theirs = gone();
      for (const g of [...mine, theirs]) await stores.gone.markGone(g);
      await stores.gone.purgeOrganization({ orgId });
      expect(await stores.gone.listGone([...mine, theirs])).toEqual(new Set([theirs.submissionId]));
      await stores.gone.purgeOrganization({ orgId });
      expect(await stores.gone.listGone([theirs])).toEqual(new Set([theirs.submissionId]));
    });
  });
}
