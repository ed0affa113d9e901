import { randomUUID } from 'node:crypto';
import { billingPeriodOf, DEFAULT_FORM_SETTINGS, type Form, type QuotaUpdated } from '@formgate/contracts';
import { systemIds } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { RELEASE_BATCH, releaseHeld } from '../src/use-cases/release-held.ts';

const NOW = new Date('2026-03-15T12:00:00.000Z');
const clock = { now: () => NOW };

/**
 * `releaseHeld` against a real store: `create` opens an instance on one database (called twice for two forms
 * instances sharing it).
 */
export function releaseHeldSuite(name: string, create: () => Promise<FormsStores>) {
  describe(`releaseHeld on ${name}`, () => {
    const setUp = async (stores: FormsStores, heldCount: number) => {
      const orgId = `org_${randomUUID()}`;
      const id = randomUUID();
      const form: Form = {
        id,
        orgId,
        name: 'Quote',
        slug: `quote-${id.slice(0, 8)}`,
        key: id.replaceAll('-', '').slice(0, 16),
        settings: DEFAULT_FORM_SETTINGS,
        createdAt: NOW.toISOString(),
        updatedAt: NOW.toISOString(),
        version: 1,
      };
      await stores.forms.insertForm(form);
      const held: SubmissionRecord[] = Array.from({ length: heldCount }, (_, i) => ({
        id: randomUUID(),
        formId: id,
        orgId,
        createdAt: new Date(NOW.getTime() - (heldCount - i) * 60_000).toISOString(),
        fields: [{ name: 'i', value: String(i) }],
        files: [],
        spam: { isSpam: false, reasons: [] },
        held: true,
        meta: { subject: `s${i}` },
      }));
      // Stored newest first: the release goes by `createdAt`, not by storage.
      await stores.submissions.insertSubmissions([...held].reverse());
      return { form, orgId, held };
    };
    const view = (orgId: string, used: number, max: number, period = billingPeriodOf(NOW)) =>
      ({
        orgId,
        period,
        submissionsUsed: used,
        submissionsMax: max,
        overQuota: used >= max,
        submissionsHeld: 0,
        emailsUsed: 0,
        emailsOverQuota: false,
      }) satisfies QuotaUpdated['data'];
    const releasedOf = async (stores: FormsStores, formId: string) =>
      (await stores.changes.listUnpublishedSubmissionChanges(100_000)).filter(
        (c) => c.formId === formId && c.action === 'release',
      );

    it('releases the oldest held up to the allowance, with their reserved fields; a view again or lagging releases nothing more', async () => {
      const stores = await create();
      const deps = { ...stores, clock, ids: systemIds };
      const { form, orgId, held } = await setUp(stores, 5);
      expect(await releaseHeld(deps, view(orgId, 3, 5, '2026-02'))).toBe(0); // last month's view
      expect(await releaseHeld(deps, view(orgId, 3, 3))).toBe(0); // over quota
      expect(await releaseHeld(deps, view(orgId, 3, 5))).toBe(2);
      const released = await releasedOf(stores, form.id);
      expect(released.map((c) => c.submissionId)).toEqual([held[0]?.id, held[1]?.id]);
      expect(released[0]?.submission).toMatchObject({ id: held[0]?.id, held: false, meta: { subject: 's0' } });
      expect(await releaseHeld(deps, view(orgId, 3, 5))).toBe(0);
      expect(await releaseHeld(deps, view(orgId, 4, 5))).toBe(0);
      expect(await releaseHeld(deps, view(orgId, 5, 6))).toBe(1);
      expect((await releasedOf(stores, form.id)).map((c) => c.submissionId)).toEqual(held.slice(0, 3).map((h) => h.id));
      expect(await stores.held.getReleaseLedger({ orgId })).toMatchObject({ level: 6, owed: 3, done: 3 });
      expect(await releaseHeld(deps, view(orgId, 6, 100))).toBe(2);
      expect(await releaseHeld(deps, view(orgId, 8, 100))).toBe(0);
      expect(await stores.held.listOldestHeld({ orgId }, 10)).toEqual([]);
    });

    it('releases in batches of RELEASE_BATCH, every one once', async () => {
      const stores = await create();
      const { form, orgId, held } = await setUp(stores, RELEASE_BATCH + 7);
      expect(await releaseHeld({ ...stores, clock, ids: systemIds }, view(orgId, 0, 1_000))).toBe(held.length);
      const released = await releasedOf(stores, form.id);
      expect(new Set(released.map((c) => c.submissionId)).size).toBe(held.length);
    });

    it('with two instances releasing at once: every submission released at most once, at most one batch over', async () => {
      const [a, b] = [await create(), await create()];
      const { form, orgId } = await setUp(a, 12);
      const results = await Promise.all(
        [a, b].map((stores) => releaseHeld({ ...stores, clock, ids: systemIds }, view(orgId, 2, 6))),
      );
      const released = await releasedOf(a, form.id);
      const ids = released.map((c) => c.submissionId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBe(results.reduce((x, y) => x + y, 0));
      expect(ids.length).toBeGreaterThanOrEqual(4);
      expect(ids.length).toBeLessThanOrEqual(4 + Math.min(4, RELEASE_BATCH));
    });
  });
}
