import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_NOTIFICATIONS } from '@formgate/contracts';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Delivery, DeliveryStore, FormView, StoredSubmission } from '../src/deliveries/delivery-store.ts';

export interface DeliveryStoreTarget {
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<DeliveryStore>;
}

const T0 = '2026-11-20T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
/** A `before` that every outcome recorded in these tests precedes. */
const LATER = '9999-12-31T23:59:59.999Z';

const form = (over: Partial<FormView> = {}): FormView => ({
  id: `form_${randomUUID()}`,
  orgId: `org_${randomUUID()}`,
  name: 'Contact',
  slug: 'contact',
  notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: ['a@example.com'] },
  version: 1,
  ...over,
});

export const submission = (over: Partial<StoredSubmission> = {}): StoredSubmission => ({
  submissionId: randomUUID(),
  formId: 'form-1',
  orgId: 'org-1',
  receivedAt: T0,
  fields: [{ name: 'message', value: '<script>alert(1)</script>' }],
  files: [],
  meta: {},
  spam: { isSpam: false, reasons: [] },
  held: false,
  ...over,
});

/** A planned delivery with fresh ids; `over` replaces any field. */
export const delivery = (over: Partial<Delivery> = {}): Delivery => ({
  id: randomUUID(),
  orgId: 'org-1',
  formId: `form_${randomUUID()}`,
  submissionId: randomUUID(),
  channel: 'email',
  purpose: 'notification',
  target: 'a@example.com',
  targetId: null,
  status: 'pending',
  attempts: 0,
  lastClaimed: 0,
  lastResponse: null,
  messageId: null,
  nextAttemptAt: at(60),
  resendOf: null,
  createdAt: T0,
  updatedAt: T0,
  ...over,
});

/** The guarantees of `DeliveryStore` (see its JSDoc), checked against one adapter. */
export function runDeliveryStoreContract(target: DeliveryStoreTarget) {
  describeContract(`DeliveryStore contract: ${target.name}`, target.skip, (it) => {
    let store: DeliveryStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('keeps the highest version of a form and forgets a deleted one for good', async () => {
      const f = form({ version: 2 });
      await store.applyForm(f);
      await store.applyForm({ ...f, name: 'Older', version: 1 });
      await store.applyForm({ ...f, name: 'Same', version: 2 });
      expect(await store.getForm(f.id)).toEqual(f);
      const newer = { ...f, name: 'Newer', version: 3 };
      await store.applyForm(newer);
      expect(await store.getForm(f.id)).toEqual(newer);

      await store.deleteForm(f.id, 4);
      expect(await store.getForm(f.id)).toBe('deleted');
      await store.applyForm({ ...f, version: 3 });
      expect(await store.getForm(f.id)).toBe('deleted');
      expect(await store.getForm(`form_${randomUUID()}`)).toBeNull();
    });

    it('keeps the first copy of a submission and forgets a deleted one', async () => {
      const s = submission();
      await store.saveSubmission(s);
      await store.saveSubmission({ ...s, fields: [] });
      expect(await store.getSubmission(s.submissionId)).toEqual(s);
      await store.deleteSubmission(s.submissionId);
      expect(await store.getSubmission(s.submissionId)).toBeNull();
    });

    it('keeps the first copy of many submissions saved at once, whichever were there already', async () => {
      const old = submission();
      await store.saveSubmission(old);
      const fresh = [submission(), submission()];
      await store.saveSubmissions([
        { ...old, fields: [] },
        fresh[0] as StoredSubmission,
        { ...(fresh[0] as StoredSubmission), fields: [] },
        fresh[1] as StoredSubmission,
      ]);
      expect(await store.getSubmission(old.submissionId)).toEqual(old);
      expect(await store.getSubmission(fresh[0]?.submissionId ?? '')).toEqual(fresh[0]);
      expect(await store.getSubmission(fresh[1]?.submissionId ?? '')).toEqual(fresh[1]);
      await store.saveSubmissions([]);
    });

    it('plans the deliveries of many submissions in one call, answering each as stored', async () => {
      const s1 = randomUUID();
      const s2 = randomUUID();
      const a = delivery({ submissionId: s1, createdAt: at(2) });
      const b = delivery({ submissionId: s1, target: 'b@example.com', createdAt: at(1) });
      const c = delivery({ submissionId: s2, createdAt: at(0) });
      expect(await store.planDeliveries([a])).toEqual([a]);
      // One already planned (kept as it was), two new, across two submissions.
      expect(await store.planDeliveries([c, { ...a, status: 'failed' }, b])).toEqual([c, a, b]);
      expect(await store.listBySubmission(s1)).toEqual([b, a]);
      expect(await store.listBySubmission(s2)).toEqual([c]);
      expect(await store.planDeliveries([])).toEqual([]);
    });

    it('plans each delivery once and answers what was planned first, in the order given', async () => {
      const a = delivery();
      const b = delivery({ submissionId: a.submissionId, target: 'b@example.com', createdAt: at(1) });
      expect(await store.planDeliveries([a])).toEqual([a]);
      const again = await store.planDeliveries([{ ...b }, { ...a, status: 'failed', createdAt: at(9) }]);
      expect(again).toEqual([b, a]);
      expect(await store.getDelivery(a.id)).toEqual(a);
      expect(await store.listBySubmission(a.submissionId)).toEqual([a, b]);
      expect(await store.planDeliveries([])).toEqual([]);
      expect(await store.getDelivery(randomUUID())).toBeNull();
    });

    it('keeps a webhook delivery’s event and lists an endpoint’s deliveries newest first', async () => {
      const targetId = randomUUID();
      const webhookEvent = { type: 'submission.deleted' as const, occurredAt: at(3), receivedAt: at(-60) };
      const hook = (createdAt: string) =>
        delivery({
          channel: 'webhook',
          purpose: 'slack',
          target: 'https://hooks.example/x',
          targetId,
          createdAt,
          webhookEvent,
        });
      const [older, newer, newest] = [hook(at(1)), hook(at(2)), hook(at(3))];
      const email = delivery({ submissionId: older.submissionId });
      await store.planDeliveries([newer, older, newest, email]);
      expect(await store.getDelivery(older.id)).toEqual(older);
      expect(await store.getDelivery(email.id)).not.toHaveProperty('webhookEvent');
      expect(await store.listByTarget(targetId, 2)).toEqual([newest, newer]);
      expect(await store.listByTarget(randomUUID(), 5)).toEqual([]);
    });

    it('lets exactly one of many concurrent callers claim an attempt, and leases the delivery to it', async () => {
      const d = delivery();
      await store.planDeliveries([d]);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => store.claimAttempt(d.id, 1, { startedAt: at(1), leaseUntil: at(121) })),
      );
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      for (const r of results.filter((x) => !x.claimed))
        expect(r).toEqual({ claimed: false, startedAt: at(1), finished: false });
      const leased = await store.getDelivery(d.id);
      expect(leased).toMatchObject({ lastClaimed: 1, attempts: 0, nextAttemptAt: at(121), status: 'pending' });
      expect(await store.listAttempts(d.id)).toEqual([
        { deliveryId: d.id, attempt: 1, startedAt: at(1), outcome: null },
      ]);
      // Attempt 2 is a different claim.
      expect(await store.claimAttempt(d.id, 2, { startedAt: at(200), leaseUntil: at(320) })).toEqual({ claimed: true });
    });

    it('records outcomes: a retry stays due, a final one clears the due time and waits for publication', async () => {
      const d = delivery();
      await store.planDeliveries([d]);
      await store.claimAttempt(d.id, 1, { startedAt: at(1), leaseUntil: at(121) });
      const retry = { code: '421', text: 'try later' };
      const afterFirst = await store.recordOutcome(d.id, 1, {
        status: 'retrying',
        response: retry,
        messageId: null,
        nextAttemptAt: at(6),
        at: at(2),
      });
      expect(afterFirst).toMatchObject({ status: 'retrying', attempts: 1, lastResponse: retry, nextAttemptAt: at(6) });
      expect((await store.listUnpublished(1000, LATER)).map((x) => x.id)).not.toContain(d.id);

      expect(await store.claimAttempt(d.id, 2, { startedAt: at(6), leaseUntil: at(126) })).toEqual({ claimed: true });
      const ok = { code: '250', text: 'accepted' };
      const final = await store.recordOutcome(d.id, 2, {
        status: 'succeeded',
        response: ok,
        messageId: '<m1@formgate>',
        nextAttemptAt: null,
        at: at(7),
      });
      expect(final).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        lastClaimed: 2,
        lastResponse: ok,
        messageId: '<m1@formgate>',
        nextAttemptAt: null,
        updatedAt: at(7),
      });
      const log = await store.listAttempts(d.id);
      expect(log.map((a) => [a.attempt, a.outcome?.status])).toEqual([
        [1, 'retrying'],
        [2, 'succeeded'],
      ]);
      // A stale attempt (one that outlived its lease) does not overwrite a later one.
      await store.recordOutcome(d.id, 1, {
        status: 'failed',
        response: null,
        messageId: null,
        nextAttemptAt: null,
        at: at(8),
      });
      expect(await store.getDelivery(d.id)).toMatchObject({ status: 'succeeded', attempts: 2 });

      expect((await store.listUnpublished(1000, LATER)).map((x) => x.id)).toContain(d.id);
      // Only what was recorded before `before` (the outbox pass leaves the rest to its recorder for a while).
      expect((await store.listUnpublished(1000, at(7))).map((x) => x.id)).not.toContain(d.id);
      expect((await store.listUnpublished(1000, at(8))).map((x) => x.id)).toContain(d.id);
      await store.markPublished([d.id]);
      expect((await store.listUnpublished(1000, LATER)).map((x) => x.id)).not.toContain(d.id);
      expect(await store.claimAttempt(d.id, 2, { startedAt: at(9), leaseUntil: at(99) })).toEqual({
        claimed: false,
        startedAt: at(6),
        finished: true,
      });
    });

    it('lists due deliveries, earliest first, and never final ones', async () => {
      // Far in the past, so that deliveries other tests left due do not come first.
      const base = '2001-01-01T00:00:';
      const late = delivery({ nextAttemptAt: `${base}30.000Z` });
      const early = delivery({ nextAttemptAt: `${base}10.000Z` });
      const future = delivery({ nextAttemptAt: '2001-01-02T00:00:00.000Z' });
      const done = delivery({ nextAttemptAt: `${base}05.000Z` });
      await store.planDeliveries([late, early, future, done]);
      await store.claimAttempt(done.id, 1, { startedAt: `${base}05.000Z`, leaseUntil: `${base}06.000Z` });
      await store.recordOutcome(done.id, 1, {
        status: 'failed',
        response: { code: '550', text: 'no' },
        messageId: null,
        nextAttemptAt: null,
        at: `${base}06.000Z`,
      });
      const due = await store.listDue(`${base}59.000Z`, 10);
      expect(due.map((d) => d.id)).toEqual([early.id, late.id]);
      expect((await store.listDue(`${base}59.000Z`, 1)).map((d) => d.id)).toEqual([early.id]);
    });

    it('defers an email: no longer due, listed per organization in order, until an attempt is claimed', async () => {
      const orgId = `org_${randomUUID()}`;
      const past = '2001-01-01T00:00:00.000Z';
      const [d1, d2, busy] = [0, 1, 2].map((i) => delivery({ orgId, nextAttemptAt: past, createdAt: at(i) })) as [
        Delivery,
        Delivery,
        Delivery,
      ];
      const elsewhere = delivery({ nextAttemptAt: past });
      await store.planDeliveries([d1, d2, busy, elsewhere]);
      const deferred = await store.deferDelivery(d1.id, 0, at(10));
      expect(deferred).toEqual({ ...d1, status: 'deferred', nextAttemptAt: null, updatedAt: at(10) });
      await store.deferDelivery(d2.id, 0, at(11));
      // Deferring again changes nothing; nor does a deferral by someone who read it before an attempt was claimed.
      expect(await store.deferDelivery(d1.id, 0, at(12))).toEqual(deferred);
      await store.claimAttempt(busy.id, 1, { startedAt: at(5), leaseUntil: at(125) });
      expect(await store.deferDelivery(busy.id, 0, at(13))).toMatchObject({
        status: 'pending',
        nextAttemptAt: at(125),
      });
      expect(await store.deferDelivery(randomUUID(), 0, at(13))).toBeNull();

      expect(await store.getDelivery(d1.id)).toEqual(deferred);
      expect((await store.listBySubmission(d1.submissionId)).map((d) => d.status)).toEqual(['deferred']);
      const due = (await store.listDue(at(100_000), 10_000)).map((d) => d.id);
      expect(due).not.toContain(d1.id);
      expect(due).not.toContain(d2.id);
      expect(due).toContain(elsewhere.id);
      expect((await store.listDeferred(orgId, 10)).map((d) => [d.id, d.status])).toEqual([
        [d1.id, 'deferred'],
        [d2.id, 'deferred'],
      ]);
      expect((await store.listDeferred(orgId, 1)).map((d) => d.id)).toEqual([d1.id]);
      expect(await store.listDeferred(`org_${randomUUID()}`, 10)).toEqual([]);
      expect(await store.deferredOrgs()).toContain(orgId);
      expect(await store.deferredOrgs()).not.toContain(elsewhere.orgId);

      // Each deferral awaits publication once.
      const unpublished = async () => (await store.listUnpublished(10_000, LATER)).map((d) => d.id);
      expect(await unpublished()).toEqual(expect.arrayContaining([d1.id, d2.id]));
      await store.markDeferralPublished([d1.id]);
      expect(await unpublished()).not.toContain(d1.id);
      expect(await unpublished()).toContain(d2.id);

      // Released: the claim ends the deferral (and its unpublished deferral), the outcome is recorded as usual.
      expect(await store.claimAttempt(d1.id, 1, { startedAt: at(20), leaseUntil: at(140) })).toEqual({ claimed: true });
      expect(await store.getDelivery(d1.id)).toMatchObject({
        status: 'pending',
        lastClaimed: 1,
        nextAttemptAt: at(140),
      });
      await store.recordOutcome(d1.id, 1, {
        status: 'succeeded',
        response: { code: '250', text: 'accepted' },
        messageId: '<d1@formgate>',
        nextAttemptAt: null,
        at: at(21),
      });
      await store.claimAttempt(d2.id, 1, { startedAt: at(20), leaseUntil: at(140) });
      expect(await unpublished()).not.toContain(d2.id);
      await store.recordOutcome(d2.id, 1, {
        status: 'retrying',
        response: { code: '421', text: 'later' },
        messageId: null,
        nextAttemptAt: at(30),
        at: at(21),
      });
      expect(await store.getDelivery(d2.id)).toMatchObject({ status: 'retrying', nextAttemptAt: at(30) });
      expect(await store.listDeferred(orgId, 10)).toEqual([]);
      expect(await store.deferredOrgs()).not.toContain(orgId);
      // A deferral never touches a final delivery, and marking deferrals published leaves its outcome pending.
      expect(await store.deferDelivery(d1.id, 1, at(22))).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
      await store.markDeferralPublished([d1.id]);
      expect(await unpublished()).toContain(d1.id);
      await store.markPublished([d1.id]);
      expect(await unpublished()).not.toContain(d1.id);
      // A retrying delivery may be deferred again (its retry came while the quota was over).
      expect(await store.deferDelivery(d2.id, 1, at(30))).toMatchObject({ status: 'deferred', attempts: 1 });
      expect((await store.listDeferred(orgId, 10)).map((d) => d.id)).toEqual([d2.id]);
    });

    it('moves past an abandoned claim', async () => {
      const d = delivery();
      await store.planDeliveries([d]);
      await store.skipAttempt(d.id, 1);
      expect(await store.getDelivery(d.id)).toMatchObject({ lastClaimed: 1, attempts: 0 });
      await store.skipAttempt(d.id, 1);
      expect(await store.getDelivery(d.id)).toMatchObject({ lastClaimed: 1 });
    });

    it('lists a form’s failed deliveries in a time range and counts deliveries for rate limits', async () => {
      const formId = `form_${randomUUID()}`;
      const mk = (seconds: number, status: Delivery['status'], over: Partial<Delivery> = {}) =>
        delivery({ formId, createdAt: at(seconds), status, nextAttemptAt: null, ...over });
      const before = mk(0, 'failed');
      const inside = mk(10, 'failed');
      const inside2 = mk(20, 'failed');
      const ok = mk(15, 'succeeded');
      const after = mk(30, 'failed');
      const other = delivery({ createdAt: at(10), status: 'failed', nextAttemptAt: null });
      await store.planDeliveries([before, inside, inside2, ok, after, other]);
      const range = { from: at(10), to: at(30) };
      expect((await store.listFailed(formId, range, 100)).map((d) => d.id)).toEqual([inside.id, inside2.id]);
      expect(await store.listFailed(formId, range, 1)).toHaveLength(1);

      const auto = (seconds: number, target: string) => mk(seconds, 'succeeded', { purpose: 'autoresponse', target });
      await store.planDeliveries([auto(5, 'x@example.com'), auto(25, 'x@example.com'), auto(26, 'y@example.com')]);
      expect(await store.countSince({ formId, purpose: 'autoresponse', since: at(10) })).toBe(2);
      expect(await store.countSince({ formId, purpose: 'autoresponse', target: 'x@example.com', since: at(0) })).toBe(
        2,
      );
      expect(await store.countSince({ formId, purpose: 'autoresponse', target: 'x@example.com', since: at(6) })).toBe(
        1,
      );
      expect(await store.countSince({ formId, purpose: 'notification', since: at(0) })).toBe(5);
    });
  });
}
