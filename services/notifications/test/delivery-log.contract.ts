import { randomUUID } from 'node:crypto';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { beforeAll, describe, expect } from 'vitest';
import type { AttemptOutcome, Delivery, FirstAttemptBatch, NotificationStores } from '../src/store/index.ts';
import { runDeliveryLogRedactionContract } from './delivery-log-redaction.contract.ts';
import { runGoneSubmissionsContract } from './gone-submissions.contract.ts';
import { runNotificationViewsContract } from './notification-views.contract.ts';
import { runSubmissionSettlementsContract } from './submission-settlements.contract.ts';

export interface NotificationStoresTarget {
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<NotificationStores>;
}

export const T0 = '2026-11-20T10:00:00.000Z';
const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
/** A `before` that every outcome recorded in these tests precedes. */
const LATER = '9999-12-31T23:59:59.999Z';

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

/**
 * The guarantees of `DeliveryLog`, `OutcomeOutbox` and `DeferredEmails` (see their JSDoc), checked against one
 * adapter's stores over one database, and those of `NotificationViews` (`notification-views.contract.ts`) and of
 * an erasure's redaction (`delivery-log-redaction.contract.ts`), of no-store submissions' settling
 * (`submission-settlements.contract.ts`), and of deleted submissions' tombstones (`gone-submissions.contract.ts`).
 */
export function runNotificationStoresContract(target: NotificationStoresTarget) {
  runNotificationViewsContract(target);
  runDeliveryLogRedactionContract(target);
  runSubmissionSettlementsContract(target);
  runGoneSubmissionsContract(target);
  describeContract(`DeliveryLog contract: ${target.name}`, target.skip, (it) => {
    let stores: NotificationStores;
    beforeAll(async () => {
      stores = await target.create();
    });

    it('plans the deliveries of many submissions in one call, answering each as stored', async () => {
      const s1 = randomUUID();
      const s2 = randomUUID();
      const a = delivery({ submissionId: s1, createdAt: at(2) });
      const b = delivery({ submissionId: s1, target: 'b@example.com', createdAt: at(1) });
      const c = delivery({ submissionId: s2, createdAt: at(0) });
      expect(await stores.log.planDeliveries([a])).toEqual([a]);
      // One already planned (kept as it was), two new, across two submissions.
      expect(await stores.log.planDeliveries([c, { ...a, status: 'failed' }, b])).toEqual([c, a, b]);
      expect(await stores.log.listBySubmission(a, s1)).toEqual([b, a]);
      expect(await stores.log.listBySubmission(c, s2)).toEqual([c]);
      // Another organization's reads find none of them.
      expect(await stores.log.listBySubmission({ orgId: `org_${randomUUID()}` }, s1)).toEqual([]);
      expect(await stores.log.getDelivery({ orgId: `org_${randomUUID()}` }, a.id)).toBeNull();
      expect(await stores.log.planDeliveries([])).toEqual([]);
    });

    it('plans each delivery once and answers what was planned first, in the order given', async () => {
      const a = delivery();
      const b = delivery({ submissionId: a.submissionId, target: 'b@example.com', createdAt: at(1) });
      expect(await stores.log.planDeliveries([a])).toEqual([a]);
      const again = await stores.log.planDeliveries([{ ...b }, { ...a, status: 'failed', createdAt: at(9) }]);
      expect(again).toEqual([b, a]);
      expect(await stores.log.getDelivery(a, a.id)).toEqual(a);
      expect(await stores.log.listBySubmission(a, a.submissionId)).toEqual([a, b]);
      expect(await stores.log.planDeliveries([])).toEqual([]);
      expect(await stores.log.getDelivery(a, randomUUID())).toBeNull();
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
      await stores.log.planDeliveries([newer, older, newest, email]);
      expect(await stores.log.getDelivery(older, older.id)).toEqual(older);
      expect(await stores.log.getDelivery(email, email.id)).not.toHaveProperty('webhookEvent');
      expect(await stores.log.listByTarget(older, targetId, 2)).toEqual([newest, newer]);
      expect(await stores.log.listByTarget(older, randomUUID(), 5)).toEqual([]);
      expect(await stores.log.listByTarget({ orgId: `org_${randomUUID()}` }, targetId, 5)).toEqual([]);
      expect(await stores.log.listAttempts({ orgId: `org_${randomUUID()}` }, older.id)).toEqual([]);
    });

    it('lets exactly one of many concurrent callers claim an attempt, and leases the delivery to it', async () => {
      const d = delivery();
      await stores.log.planDeliveries([d]);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => stores.log.claimAttempt(d.id, 1, { startedAt: at(1), leaseUntil: at(121) })),
      );
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      for (const r of results.filter((x) => !x.claimed))
        expect(r).toEqual({ claimed: false, startedAt: at(1), outcome: null });
      const leased = await stores.log.getDelivery(d, d.id);
      expect(leased).toMatchObject({ lastClaimed: 1, attempts: 0, nextAttemptAt: at(121), status: 'pending' });
      expect(await stores.log.listAttempts(d, d.id)).toEqual([
        { deliveryId: d.id, attempt: 1, startedAt: at(1), outcome: null },
      ]);
      // Attempt 2 is a different claim.
      expect(await stores.log.claimAttempt(d.id, 2, { startedAt: at(200), leaseUntil: at(320) })).toEqual({
        claimed: true,
      });
    });

    it('records outcomes: a retry stays due, a final one clears the due time and waits for publication', async () => {
      const d = delivery();
      await stores.log.planDeliveries([d]);
      await stores.log.claimAttempt(d.id, 1, { startedAt: at(1), leaseUntil: at(121) });
      const retry = { code: '421', text: 'try later' };
      const afterFirst = await stores.log.recordOutcome(d.id, 1, {
        status: 'retrying',
        response: retry,
        messageId: null,
        nextAttemptAt: at(6),
        at: at(2),
      });
      expect(afterFirst).toMatchObject({ status: 'retrying', attempts: 1, lastResponse: retry, nextAttemptAt: at(6) });
      expect((await stores.outbox.listUnpublished(1000, LATER)).map((x) => x.id)).not.toContain(d.id);

      expect(await stores.log.claimAttempt(d.id, 2, { startedAt: at(6), leaseUntil: at(126) })).toEqual({
        claimed: true,
      });
      const ok = { code: '250', text: 'accepted' };
      const final = await stores.log.recordOutcome(d.id, 2, {
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
      const log = await stores.log.listAttempts(d, d.id);
      expect(log.map((a) => [a.attempt, a.outcome?.status])).toEqual([
        [1, 'retrying'],
        [2, 'succeeded'],
      ]);
      // A stale attempt (one that outlived its lease) does not overwrite a later one.
      await stores.log.recordOutcome(d.id, 1, {
        status: 'failed',
        response: null,
        messageId: null,
        nextAttemptAt: null,
        at: at(8),
      });
      expect(await stores.log.getDelivery(d, d.id)).toMatchObject({ status: 'succeeded', attempts: 2 });

      expect((await stores.outbox.listUnpublished(1000, LATER)).map((x) => x.id)).toContain(d.id);
      // Only what was recorded before `before` (the outbox pass leaves the rest to its recorder for a while).
      expect((await stores.outbox.listUnpublished(1000, at(7))).map((x) => x.id)).not.toContain(d.id);
      expect((await stores.outbox.listUnpublished(1000, at(8))).map((x) => x.id)).toContain(d.id);
      await stores.outbox.markPublished([d.id]);
      expect((await stores.outbox.listUnpublished(1000, LATER)).map((x) => x.id)).not.toContain(d.id);
      expect(await stores.log.claimAttempt(d.id, 2, { startedAt: at(9), leaseUntil: at(99) })).toEqual({
        claimed: false,
        startedAt: at(6),
        outcome: { status: 'succeeded', response: ok, messageId: '<m1@formgate>', nextAttemptAt: null, at: at(7) },
      });
    });

    it('lists due deliveries, earliest first, and never final ones', async () => {
      // Far in the past, so that deliveries other tests left due do not come first.
      const base = '2001-01-01T00:00:';
      const late = delivery({ nextAttemptAt: `${base}30.000Z` });
      const early = delivery({ nextAttemptAt: `${base}10.000Z` });
      const future = delivery({ nextAttemptAt: '2001-01-02T00:00:00.000Z' });
      const done = delivery({ nextAttemptAt: `${base}05.000Z` });
      await stores.log.planDeliveries([late, early, future, done]);
      await stores.log.claimAttempt(done.id, 1, { startedAt: `${base}05.000Z`, leaseUntil: `${base}06.000Z` });
      await stores.log.recordOutcome(done.id, 1, {
        status: 'failed',
        response: { code: '550', text: 'no' },
        messageId: null,
        nextAttemptAt: null,
        at: `${base}06.000Z`,
      });
      const due = await stores.log.listDue(`${base}59.000Z`, 10);
      expect(due.map((d) => d.id)).toEqual([early.id, late.id]);
      expect((await stores.log.listDue(`${base}59.000Z`, 1)).map((d) => d.id)).toEqual([early.id]);
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
      await stores.log.planDeliveries([d1, d2, busy, elsewhere]);
      const deferred = await stores.deferred.defer(d1.id, 0, at(10));
      expect(deferred).toEqual({ ...d1, status: 'deferred', nextAttemptAt: null, updatedAt: at(10) });
      await stores.deferred.defer(d2.id, 0, at(11));
      // Deferring again changes nothing; nor does a deferral by someone who read it before an attempt was claimed.
      expect(await stores.deferred.defer(d1.id, 0, at(12))).toEqual(deferred);
      await stores.log.claimAttempt(busy.id, 1, { startedAt: at(5), leaseUntil: at(125) });
      expect(await stores.deferred.defer(busy.id, 0, at(13))).toMatchObject({
        status: 'pending',
        nextAttemptAt: at(125),
      });
      expect(await stores.deferred.defer(randomUUID(), 0, at(13))).toBeNull();

      expect(await stores.log.getDelivery(d1, d1.id)).toEqual(deferred);
      expect((await stores.log.listBySubmission(d1, d1.submissionId)).map((d) => d.status)).toEqual(['deferred']);
      const due = (await stores.log.listDue(at(100_000), 10_000)).map((d) => d.id);
      expect(due).not.toContain(d1.id);
      expect(due).not.toContain(d2.id);
      expect(due).toContain(elsewhere.id);
      expect((await stores.deferred.listDeferred(orgId, 10)).map((d) => [d.id, d.status])).toEqual([
        [d1.id, 'deferred'],
        [d2.id, 'deferred'],
      ]);
      expect((await stores.deferred.listDeferred(orgId, 1)).map((d) => d.id)).toEqual([d1.id]);
      expect(await stores.deferred.listDeferred(`org_${randomUUID()}`, 10)).toEqual([]);
      expect(await stores.deferred.deferredOrgs()).toContain(orgId);
      expect(await stores.deferred.deferredOrgs()).not.toContain(elsewhere.orgId);

      // Each deferral awaits publication once.
      const unpublished = async () => (await stores.outbox.listUnpublished(10_000, LATER)).map((d) => d.id);
      expect(await unpublished()).toEqual(expect.arrayContaining([d1.id, d2.id]));
      await stores.outbox.markDeferralPublished([d1.id]);
      expect(await unpublished()).not.toContain(d1.id);
      expect(await unpublished()).toContain(d2.id);

      // Released: the claim ends the deferral (and its unpublished deferral), the outcome is recorded as usual.
      expect(await stores.log.claimAttempt(d1.id, 1, { startedAt: at(20), leaseUntil: at(140) })).toEqual({
        claimed: true,
      });
      expect(await stores.log.getDelivery(d1, d1.id)).toMatchObject({
        status: 'pending',
        lastClaimed: 1,
        nextAttemptAt: at(140),
      });
      await stores.log.recordOutcome(d1.id, 1, {
        status: 'succeeded',
        response: { code: '250', text: 'accepted' },
        messageId: '<d1@formgate>',
        nextAttemptAt: null,
        at: at(21),
      });
      await stores.log.claimAttempt(d2.id, 1, { startedAt: at(20), leaseUntil: at(140) });
      expect(await unpublished()).not.toContain(d2.id);
      await stores.log.recordOutcome(d2.id, 1, {
        status: 'retrying',
        response: { code: '421', text: 'later' },
        messageId: null,
        nextAttemptAt: at(30),
        at: at(21),
      });
      expect(await stores.log.getDelivery(d2, d2.id)).toMatchObject({ status: 'retrying', nextAttemptAt: at(30) });
      expect(await stores.deferred.listDeferred(orgId, 10)).toEqual([]);
      expect(await stores.deferred.deferredOrgs()).not.toContain(orgId);
      // A deferral never touches a final delivery, and marking deferrals published leaves its outcome pending.
      expect(await stores.deferred.defer(d1.id, 1, at(22))).toMatchObject({ status: 'succeeded', nextAttemptAt: null });
      await stores.outbox.markDeferralPublished([d1.id]);
      expect(await unpublished()).toContain(d1.id);
      await stores.outbox.markPublished([d1.id]);
      expect(await unpublished()).not.toContain(d1.id);
      // A retrying delivery may be deferred again (its retry came while the quota was over).
      expect(await stores.deferred.defer(d2.id, 1, at(30))).toMatchObject({ status: 'deferred', attempts: 1 });
      expect((await stores.deferred.listDeferred(orgId, 10)).map((d) => d.id)).toEqual([d2.id]);
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
      await stores.log.planDeliveries([before, inside, inside2, ok, after, other]);
      const range = { from: at(10), to: at(30) };
      expect((await stores.log.listFailed(inside, formId, range, 100)).map((d) => d.id)).toEqual([
        inside.id,
        inside2.id,
      ]);
      expect(await stores.log.listFailed(inside, formId, range, 1)).toHaveLength(1);
      expect(await stores.log.listFailed({ orgId: `org_${randomUUID()}` }, formId, range, 100)).toEqual([]);

      const auto = (seconds: number, target: string) => mk(seconds, 'succeeded', { purpose: 'autoresponse', target });
      await stores.log.planDeliveries([auto(5, 'x@example.com'), auto(25, 'x@example.com'), auto(26, 'y@example.com')]);
      expect(await stores.log.countSince({ formId, purpose: 'autoresponse', since: at(10) })).toBe(2);
      expect(
        await stores.log.countSince({ formId, purpose: 'autoresponse', target: 'x@example.com', since: at(0) }),
      ).toBe(2);
      expect(
        await stores.log.countSince({ formId, purpose: 'autoresponse', target: 'x@example.com', since: at(6) }),
      ).toBe(1);
      expect(await stores.log.countSince({ formId, purpose: 'notification', since: at(0) })).toBe(5);
    });

    describe('a consumer batch’s first attempts (ADR 61)', () => {
      const batchOf = (startedAt = at(100), leaseUntil = at(220)): FirstAttemptBatch => ({
        id: `batch_${randomUUID()}`,
        startedAt,
        leaseUntil,
      });
      const accepted = { code: '250', text: 'accepted' };
      const succeeded = (seconds: number, messageId = `<${randomUUID()}@formgate>`): AttemptOutcome => ({
        status: 'succeeded',
        response: accepted,
        messageId,
        nextAttemptAt: null,
        at: at(seconds),
      });
      const ids = (list: Delivery[]) => list.map((d) => d.id);
      const unpublished = async () => ids(await stores.outbox.listUnpublished(100_000, LATER));
      const dueEver = async () => ids(await stores.log.listDue(LATER, 100_000));
      /** Claims `d` alone in a new batch; answers the batch and the delivery as claimed. */
      const claimed = async (d: Delivery, batch = batchOf()) => {
        const [first] = await stores.log.claimFirstAttempts(batch, [d]);
        if (!first?.claimed) throw new Error(`the batch did not claim ${d.id}`);
        return { batch, delivery: first.delivery };
      };

      it('claims attempt 1 of each delivery it inserts, and answers one planned before as stored, unchanged', async () => {
        const submissionId = randomUUID();
        const [planned, earlier, fresh1, fresh2] = [0, 1, 2, 3].map((i) =>
          delivery({ submissionId, target: `t${i}@example.com`, createdAt: at(i) }),
        ) as [Delivery, Delivery, Delivery, Delivery];
        await stores.log.planDeliveries([planned]);
        const first = await claimed(earlier, batchOf(at(50), at(170)));

        const batch = batchOf();
        const answer = await stores.log.claimFirstAttempts(batch, [
          fresh1,
          { ...planned, status: 'failed', nextAttemptAt: null },
          fresh2,
          { ...earlier, createdAt: at(9) },
        ]);
        expect(answer.map((a) => [a.delivery.id, a.claimed])).toEqual([
          [fresh1.id, true],
          [planned.id, false],
          [fresh2.id, true],
          [earlier.id, false],
        ]);
        for (const fresh of [fresh1, fresh2]) {
          const stored = await stores.log.getDelivery(fresh, fresh.id);
          expect(stored).toMatchObject({
            ...fresh,
            status: 'pending',
            attempts: 0,
            lastClaimed: 1,
            nextAttemptAt: null,
            updatedAt: expect.any(String),
          });
          expect(answer.find((a) => a.delivery.id === fresh.id)?.delivery).toEqual(stored);
        }
        // Planned before (by `planDeliveries`, or by an earlier batch): as stored, not claimed again.
        expect(answer[1]?.delivery).toEqual(planned);
        expect(await stores.log.getDelivery(planned, planned.id)).toEqual(planned);
        expect(answer[3]?.delivery).toEqual(first.delivery);
        expect(await stores.log.getDelivery(earlier, earlier.id)).toEqual(first.delivery);
        expect(await stores.log.listBySubmission(planned, submissionId)).toEqual(
          await Promise.all([planned, earlier, fresh1, fresh2].map((d) => stores.log.getDelivery(d, d.id))),
        );
        // The one planned before is still at its attempt 1.
        expect(await stores.log.claimAttempt(planned.id, 1, { startedAt: at(101), leaseUntil: at(221) })).toEqual({
          claimed: true,
        });
        expect(await stores.log.claimFirstAttempts(batchOf(), [])).toEqual([]);
      });

      it('refuses anyone else attempt 1 of a delivery the batch claimed', async () => {
        const { batch, delivery: d } = await claimed(delivery());
        expect(await stores.log.claimAttempt(d.id, 1, { startedAt: at(101), leaseUntil: at(221) })).toMatchObject({
          claimed: false,
          startedAt: batch.startedAt,
        });
        expect(await stores.log.getDelivery(d, d.id)).toEqual(d);
      });

      it('never lists a delivery the batch claimed as due, however late', async () => {
        const d = delivery({ nextAttemptAt: '2001-01-01T00:00:00.000Z' });
        await claimed(d);
        expect(await dueEver()).not.toContain(d.id);
        expect(ids(await stores.log.listDue(at(220), 100_000))).not.toContain(d.id);
      });

      it('lists an open batch once its lease has ended, until it is closed', async () => {
        const [a, b] = [delivery(), delivery()];
        await stores.log.planDeliveries([b]);
        const batch = batchOf(at(100), at(220));
        await stores.log.claimFirstAttempts(batch, [a, b]);
        const open = async (before: string) =>
          (await stores.log.listOpenBatches(before, 100_000)).filter((x) => x.batch.id === batch.id);
        expect(await open(at(100))).toEqual([]);
        expect(await open(at(220))).toEqual([]);
        const claimedA = (await stores.log.getDelivery(a, a.id)) as Delivery;
        const storedB = (await stores.log.getDelivery(b, b.id)) as Delivery;
        const listed = [{ batch, deliveries: [claimedA, storedB] }];
        expect(await open(at(221))).toEqual(listed);
        expect(await open(LATER)).toEqual(listed);
        // Recording the outcomes does not close it: only `closeBatch` does (once they are published).
        const doneA = await stores.log.recordFirstAttempt(batch, { delivery: claimedA, outcome: succeeded(110) });
        expect(await open(LATER)).toEqual([{ batch, deliveries: [doneA, storedB] }]);
        await stores.log.closeBatch(batch.id);
        expect(await open(LATER)).toEqual([]);
        await stores.log.closeBatch(batch.id);
      });

      it('records a batch’s success: visible to every read, its publication the batch’s', async () => {
        const targetId = randomUUID();
        const webhookEvent = { type: 'submission.created' as const, occurredAt: at(0), receivedAt: at(0) };
        const hook = delivery({
          channel: 'webhook',
          purpose: 'slack',
          target: 'https://hooks.example/y',
          targetId,
          webhookEvent,
        });
        const mail = delivery({ submissionId: hook.submissionId, createdAt: at(1) });
        const batch = batchOf();
        const claims = await stores.log.claimFirstAttempts(batch, [hook, mail]);
        const outcomes = [succeeded(110, '<hook@formgate>'), succeeded(111, '<mail@formgate>')];
        const recorded = await Promise.all(
          claims.map((c, i) =>
            stores.log.recordFirstAttempt(batch, { delivery: c.delivery, outcome: outcomes[i] as AttemptOutcome }),
          ),
        );
        expect(ids(recorded)).toEqual([hook.id, mail.id]);
        expect(recorded[0]).toMatchObject({
          status: 'succeeded',
          attempts: 1,
          lastClaimed: 1,
          lastResponse: accepted,
          messageId: '<hook@formgate>',
          nextAttemptAt: null,
          webhookEvent,
        });
        expect(recorded[1]).toMatchObject({ status: 'succeeded', attempts: 1, messageId: '<mail@formgate>' });
        const [storedHook, storedMail] = recorded as [Delivery, Delivery];
        expect(await stores.log.getDelivery(hook, hook.id)).toEqual(storedHook);
        expect(await stores.log.getDelivery(mail, mail.id)).toEqual(storedMail);
        expect(await stores.log.listBySubmission(hook, hook.submissionId)).toEqual([storedHook, storedMail]);
        expect(await stores.log.listByTarget(hook, targetId, 5)).toEqual([storedHook]);
        expect(await stores.log.listAttempts(hook, hook.id)).toEqual([
          { deliveryId: hook.id, attempt: 1, startedAt: batch.startedAt, outcome: outcomes[0] },
        ]);
        expect(await stores.log.listAttempts(mail, mail.id)).toEqual([
          { deliveryId: mail.id, attempt: 1, startedAt: batch.startedAt, outcome: outcomes[1] },
        ]);
        // Its publication is the batch's (`closeBatch`), not the outbox's; nor is it due again.
        expect(await unpublished()).not.toContain(hook.id);
        expect(await unpublished()).not.toContain(mail.id);
        expect(await dueEver()).not.toContain(hook.id);
        // A redelivered batch finds it as recorded, and does not claim it.
        expect(await stores.log.claimFirstAttempts(batchOf(), [mail])).toEqual([
          { delivery: storedMail, claimed: false },
        ]);
        expect(await stores.log.claimAttempt(mail.id, 1, { startedAt: at(300), leaseUntil: at(420) })).toEqual({
          claimed: false,
          startedAt: batch.startedAt,
          outcome: outcomes[1],
        });
      });

      it('records a batch’s failures as recordOutcome does: a retry due later, a final failure listed and pending publication', async () => {
        const formId = `form_${randomUUID()}`;
        const [retry, fail] = [delivery({ formId, createdAt: at(5) }), delivery({ formId, createdAt: at(6) })];
        const batch = batchOf();
        const claims = await stores.log.claimFirstAttempts(batch, [retry, fail]);
        const later: AttemptOutcome = {
          status: 'retrying',
          response: { code: '421', text: 'try later' },
          messageId: null,
          nextAttemptAt: at(400),
          at: at(110),
        };
        const no: AttemptOutcome = {
          status: 'failed',
          response: { code: '550', text: 'no such user' },
          messageId: null,
          nextAttemptAt: null,
          at: at(111),
        };
        const recorded = await Promise.all([
          stores.log.recordFirstAttempt(batch, { delivery: claims[0]?.delivery as Delivery, outcome: later }),
          stores.log.recordFirstAttempt(batch, { delivery: claims[1]?.delivery as Delivery, outcome: no }),
        ]);
        expect(recorded[0]).toMatchObject({
          id: retry.id,
          status: 'retrying',
          attempts: 1,
          lastClaimed: 1,
          lastResponse: later.response,
          nextAttemptAt: at(400),
        });
        expect(recorded[1]).toMatchObject({
          id: fail.id,
          status: 'failed',
          attempts: 1,
          lastResponse: no.response,
          nextAttemptAt: null,
        });
        expect(await stores.log.getDelivery(retry, retry.id)).toEqual(recorded[0]);
        expect(await stores.log.getDelivery(fail, fail.id)).toEqual(recorded[1]);
        expect(await stores.log.listAttempts(retry, retry.id)).toEqual([
          { deliveryId: retry.id, attempt: 1, startedAt: batch.startedAt, outcome: later },
        ]);

        // The retry: due once its time has come, not pending publication.
        expect(ids(await stores.log.listDue(at(399), 100_000))).not.toContain(retry.id);
        expect(ids(await stores.log.listDue(at(400), 100_000))).toContain(retry.id);
        expect(await unpublished()).not.toContain(retry.id);
        expect(await stores.log.claimAttempt(retry.id, 2, { startedAt: at(400), leaseUntil: at(520) })).toEqual({
          claimed: true,
        });

        // The final failure: listed as failed, pending publication (recorded at 111), never due.
        expect(ids(await stores.log.listFailed(fail, formId, { from: at(0), to: at(10) }, 10))).toEqual([fail.id]);
        expect(await dueEver()).not.toContain(fail.id);
        expect(await unpublished()).toContain(fail.id);
        expect(ids(await stores.outbox.listUnpublished(100_000, at(111)))).not.toContain(fail.id);
        await stores.outbox.markPublished([fail.id]);
        expect(await unpublished()).not.toContain(fail.id);
      });

      it('lets exactly one of many concurrent callers claim attempt 2 of a batch’s delivery (the recovery’s)', async () => {
        const { delivery: d } = await claimed(delivery());
        const results = await Promise.all(
          Array.from({ length: 8 }, () =>
            stores.log.claimAttempt(d.id, 2, { startedAt: at(300), leaseUntil: at(420) }),
          ),
        );
        expect(results.filter((r) => r.claimed)).toHaveLength(1);
        for (const r of results.filter((x) => !x.claimed))
          expect(r).toEqual({ claimed: false, startedAt: at(300), outcome: null });
        expect(await stores.log.getDelivery(d, d.id)).toMatchObject({
          status: 'pending',
          attempts: 0,
          lastClaimed: 2,
          nextAttemptAt: at(420),
        });
        // Due again only once attempt 2's lease has ended.
        expect(ids(await stores.log.listDue(at(419), 100_000))).not.toContain(d.id);
        expect(ids(await stores.log.listDue(at(420), 100_000))).toContain(d.id);
      });

      it('makes a delivery final when attempt 1’s success is recorded after the recovery claimed attempt 2', async () => {
        const { batch, delivery: d } = await claimed(delivery());
        expect(await stores.log.claimAttempt(d.id, 2, { startedAt: at(300), leaseUntil: at(420) })).toEqual({
          claimed: true,
        });
        const outcome = succeeded(310);
        await stores.log.recordFirstAttempt(batch, { delivery: d, outcome });
        expect(await stores.log.getDelivery(d, d.id)).toMatchObject({
          status: 'succeeded',
          attempts: 1,
          lastClaimed: 2,
          messageId: outcome.messageId,
          nextAttemptAt: null,
        });
        // As `recordOutcome(id, 1, success)` would: no longer due, so nobody makes attempt 3.
        expect(await dueEver()).not.toContain(d.id);
      });

      it('never hides a batch’s success behind a late deferral', async () => {
        const orgId = `org_${randomUUID()}`;
        const { batch, delivery: d } = await claimed(delivery({ orgId }));
        const done = await stores.log.recordFirstAttempt(batch, { delivery: d, outcome: succeeded(110) });
        expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
        // Written by someone who read the delivery while attempt 1 was in flight (lastClaimed 1).
        const answer = await stores.deferred.defer(d.id, 1, at(120));
        expect(answer).toMatchObject({ status: 'succeeded', attempts: 1, nextAttemptAt: null });
        expect(await stores.log.getDelivery(d, d.id)).toEqual(done);
        expect(await stores.log.listBySubmission(d, d.submissionId)).toEqual([done]);
        expect(await stores.deferred.listDeferred(orgId, 10)).toEqual([]);
        expect(await stores.deferred.deferredOrgs()).not.toContain(orgId);
        expect(await unpublished()).not.toContain(d.id);
        expect(await dueEver()).not.toContain(d.id);
      });

      it('ends a deferral written while the batch’s attempt was in flight once that attempt succeeds', async () => {
        const orgId = `org_${randomUUID()}`;
        const { batch, delivery: d } = await claimed(delivery({ orgId }));
        expect(await stores.deferred.defer(d.id, 1, at(105))).toMatchObject({ status: 'deferred' });
        const done = await stores.log.recordFirstAttempt(batch, { delivery: d, outcome: succeeded(110) });
        expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
        expect(await stores.log.getDelivery(d, d.id)).toMatchObject({ status: 'succeeded', attempts: 1 });
        expect(await stores.deferred.listDeferred(orgId, 10)).toEqual([]);
        // As `recordOutcome` would: the deferral ends, and so does its pending publication.
        expect(await stores.deferred.deferredOrgs()).not.toContain(orgId);
        expect(await unpublished()).not.toContain(d.id);
      });
    });
  });
}
