import { randomUUID } from 'node:crypto';
import { describeContract } from '@formgate/kit/testing';
import { beforeAll, expect } from 'vitest';
import type { AttemptOutcome, NotificationStores, PlannedSubmission } from '../src/store/index.ts';
import { delivery, type NotificationStoresTarget } from './delivery-log.contract.ts';

/** Times of their own per test: `listDue` reads across every record of the database. */
let year = 1990;
const timesOf = () => {
  year += 1;
  return (seconds: number) => new Date(Date.UTC(year, 0, 1, 0, 0, seconds)).toISOString();
};

const planned = (over: Partial<PlannedSubmission> = {}): PlannedSubmission => ({
  submissionId: randomUUID(),
  orgId: `org_${randomUUID()}`,
  formId: `form_${randomUUID()}`,
  ...over,
});

const failed = (at: string): AttemptOutcome => ({
  status: 'failed',
  response: { code: '550', text: 'no such user' },
  messageId: null,
  nextAttemptAt: null,
  at,
});

/**
 * The guarantees of `SubmissionSettlements` and of `OutcomeOutbox.countPending` (see their JSDoc), checked against
 * one adapter's stores (issue 31: the no-store forms' settling).
 */
export function runSubmissionSettlementsContract(target: NotificationStoresTarget) {
  describeContract(`SubmissionSettlements contract: ${target.name}`, target.skip, (it) => {
    let stores: NotificationStores;
    beforeAll(async () => {
      stores = await target.create();
    });
    const dueIds = async (now: string, limit = 1_000) =>
      (await stores.settlements.listDue(now, limit)).map((r) => r.submissionId);

    it('records each kind’s planning once, open from the first, the record answering every kind', async () => {
      const at = timesOf();
      const sub = planned();
      expect(await stores.settlements.get(sub.submissionId)).toBeNull();
      await stores.settlements.recordPlanning([sub], ['webhook'], { now: at(1), checkAt: at(61) });
      expect(await stores.settlements.get(sub.submissionId)).toEqual({
        ...sub,
        planned: ['webhook'],
        createdAt: at(1),
        checkAt: at(61),
        settledAt: null,
      });
      // The other group, later; then the first again (a redelivered batch): nothing moves back or forth.
      await stores.settlements.recordPlanning([sub], ['email'], { now: at(5), checkAt: at(65) });
      await stores.settlements.recordPlanning([sub], ['webhook'], { now: at(9), checkAt: at(69) });
      expect(await stores.settlements.get(sub.submissionId)).toEqual({
        ...sub,
        planned: ['email', 'webhook'],
        createdAt: at(1),
        checkAt: at(61),
        settledAt: null,
      });
      await stores.settlements.recordPlanning([], ['email'], { now: at(9), checkAt: at(69) });
    });

    it('counts every kind recorded at the same moment by many callers', async () => {
      const at = timesOf();
      const subs = [planned(), planned(), planned()];
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          stores.settlements.recordPlanning(subs, [i % 2 === 0 ? 'webhook' : 'email'], {
            now: at(1),
            checkAt: at(2),
          }),
        ),
      );
      for (const sub of subs) {
        expect((await stores.settlements.get(sub.submissionId))?.planned).toEqual(['email', 'webhook']);
      }
    });

    it('lists the open records due, earliest first, until they are settled; postponing moves one', async () => {
      const at = timesOf();
      const [a, b, c] = [planned(), planned(), planned()];
      await stores.settlements.recordPlanning([b], ['webhook', 'email'], { now: at(0), checkAt: at(20) });
      await stores.settlements.recordPlanning([a], ['webhook'], { now: at(0), checkAt: at(10) });
      await stores.settlements.recordPlanning([c], ['email'], { now: at(0), checkAt: at(30) });
      const mine = (ids: string[]) => ids.filter((id) => [a, b, c].some((s) => s.submissionId === id));

      expect(mine(await dueIds(at(9)))).toEqual([]);
      expect(mine(await dueIds(at(20)))).toEqual([a.submissionId, b.submissionId]);
      expect((await stores.settlements.listDue(at(20), 1_000)).find((r) => r.submissionId === b.submissionId)).toEqual({
        ...b,
        planned: ['email', 'webhook'],
        createdAt: at(0),
        checkAt: at(20),
        settledAt: null,
      });
      const everything = await dueIds(at(30));
      expect(mine(everything)).toEqual([a.submissionId, b.submissionId, c.submissionId]);
      // At most `limit`, the earliest (other tests' records may be due before these).
      expect(await dueIds(at(30), 1)).toEqual(everything.slice(0, 1));

      await stores.settlements.postpone(a.submissionId, at(40));
      expect(mine(await dueIds(at(39)))).toEqual([b.submissionId, c.submissionId]);
      expect((await stores.settlements.get(a.submissionId))?.checkAt).toBe(at(40));

      await stores.settlements.markSettled(b.submissionId, at(25));
      expect(mine(await dueIds(at(50)))).toEqual([c.submissionId, a.submissionId]);
      expect(await stores.settlements.get(b.submissionId)).toEqual({
        ...b,
        planned: ['email', 'webhook'],
        createdAt: at(0),
        checkAt: null,
        settledAt: at(25),
      });
      // Settled for good: settling again, postponing or planning again changes nothing.
      await stores.settlements.markSettled(b.submissionId, at(45));
      await stores.settlements.postpone(b.submissionId, at(46));
      await stores.settlements.recordPlanning([b], ['webhook'], { now: at(47), checkAt: at(48) });
      expect(await stores.settlements.get(b.submissionId)).toMatchObject({ checkAt: null, settledAt: at(25) });
      expect(await dueIds('9999-12-31T23:59:59.999Z')).not.toContain(b.submissionId);
    });

    it('counts a submission’s deliveries whose event is not published yet, its batch’s open claims included', async () => {
      const at = timesOf();
      const submissionId = randomUUID();
      const orgId = `org_${randomUUID()}`;
      const scope = { orgId };
      const pending = () => stores.outbox.countPending(scope, submissionId);
      const [mail, deferred, batched] = ['a', 'b', 'c'].map((t) =>
        delivery({ orgId, submissionId, target: `${t}@example.com`, createdAt: at(0), updatedAt: at(0) }),
      ) as [ReturnType<typeof delivery>, ReturnType<typeof delivery>, ReturnType<typeof delivery>];
      // Planned, never attempted: nothing to publish yet (whether it is final is the log's to say).
      await stores.log.planDeliveries([mail, deferred]);
      expect(await pending()).toBe(0);

      // A final outcome pending publication, then published.
      await stores.log.claimAttempt(mail.id, 1, { startedAt: at(1), leaseUntil: at(181) });
      await stores.log.recordOutcome(mail.id, 1, failed(at(2)));
      expect(await pending()).toBe(1);
      expect(await stores.outbox.countPending({ orgId: `org_${randomUUID()}` }, submissionId)).toBe(0);
      await stores.outbox.markPublished([mail.id]);
      expect(await pending()).toBe(0);

      // A deferral pending publication, then published.
      await stores.deferred.defer(deferred.id, 0, at(3));
      expect(await pending()).toBe(1);
      await stores.outbox.markDeferralPublished([deferred.id]);
      expect(await pending()).toBe(0);

      // A batch's claim: counted while its batch is open, even once its success is recorded (the close publishes it).
      const batch = { id: `batch_${randomUUID()}`, startedAt: at(4), leaseUntil: at(184) };
      const [claim] = await stores.log.claimFirstAttempts(batch, [batched]);
      expect(await pending()).toBe(1);
      const success: AttemptOutcome = {
        status: 'succeeded',
        response: { code: '250', text: 'ok' },
        messageId: `<${randomUUID()}@formgate>`,
        nextAttemptAt: null,
        at: at(5),
      };
      await stores.log.recordFirstAttempt(batch, { delivery: claim?.delivery ?? batched, outcome: success });
      expect(await pending()).toBe(1);
      await stores.log.closeBatch(batch.id);
      expect(await pending()).toBe(0);
      expect(await stores.outbox.countPending(scope, randomUUID())).toBe(0);
    });
  });
}
