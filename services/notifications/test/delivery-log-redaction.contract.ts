import { randomUUID } from 'node:crypto';
import { describeContract } from '@formgate/kit/testing';
import { beforeAll, expect } from 'vitest';
import { type AttemptOutcome, type Delivery, ERASED, type NotificationStores } from '../src/store/index.ts';
import { delivery, type NotificationStoresTarget, T0 } from './delivery-log.contract.ts';

const at = (seconds: number) => new Date(Date.parse(T0) + seconds * 1000).toISOString();
const SUBMITTER = 'erased.person@example.com';

const outcome = (status: AttemptOutcome['status'], seconds: number, text: string): AttemptOutcome => ({
  status,
  response: { code: status === 'succeeded' ? '250' : '421', text },
  messageId: status === 'succeeded' ? `<${randomUUID()}@formgate>` : null,
  nextAttemptAt: status === 'retrying' ? at(seconds + 60) : null,
  at: at(seconds),
});

/** `DeliveryLog.redactSubmission`'s guarantee (see its JSDoc), against one adapter's stores. */
export function runDeliveryLogRedactionContract(target: NotificationStoresTarget) {
  describeContract(`DeliveryLog redaction contract: ${target.name}`, target.skip, (it) => {
    let stores: NotificationStores;
    beforeAll(async () => {
      stores = await target.create();
    });

    /** A submission's deliveries, each with attempts whose responses echo the submitter's address. */
    async function attempted() {
      const orgId = `org_${randomUUID()}`;
      const submissionId = randomUUID();
      const base = { orgId, submissionId, nextAttemptAt: null };
      const auto = delivery({ ...base, purpose: 'autoresponse', target: SUBMITTER, createdAt: at(1) });
      const mail = delivery({ ...base, target: 'owner@example.com', createdAt: at(2) });
      const webhookEvent = { type: 'submission.created' as const, occurredAt: at(0), receivedAt: at(0) };
      const hook = delivery({
        ...base,
        channel: 'webhook',
        purpose: 'standard',
        target: 'https://hooks.example/z',
        targetId: randomUUID(),
        webhookEvent,
        createdAt: at(3),
      });
      const inFlight = delivery({ ...base, target: 'other@example.com', createdAt: at(4) });
      const erasedEvent = { type: 'submission.erased' as const, occurredAt: at(9), receivedAt: at(0), erasureId: 'e1' };
      const erasure = delivery({ ...hook, id: randomUUID(), webhookEvent: erasedEvent, createdAt: at(5) });
      await stores.log.planDeliveries([auto, hook, inFlight, erasure]);
      await stores.log.claimAttempt(auto.id, 1, { startedAt: at(5), leaseUntil: at(125) });
      await stores.log.recordOutcome(auto.id, 1, outcome('retrying', 6, `<${SUBMITTER}> mailbox busy`));
      await stores.log.claimAttempt(auto.id, 2, { startedAt: at(70), leaseUntil: at(190) });
      await stores.log.recordOutcome(auto.id, 2, outcome('succeeded', 71, `2.0.0 OK for ${SUBMITTER}`));
      // A consumer batch's success: the Mongo adapter keeps it in the attempt record only.
      const batch = { id: `batch_${randomUUID()}`, startedAt: at(5), leaseUntil: at(125) };
      const [claimed] = await stores.log.claimFirstAttempts(batch, [mail]);
      await stores.log.recordFirstAttempt(batch, {
        delivery: claimed?.delivery as Delivery,
        outcome: outcome('succeeded', 6, `queued (reply-to ${SUBMITTER})`),
      });
      await stores.log.claimAttempt(hook.id, 1, { startedAt: at(5), leaseUntil: at(125) });
      await stores.log.recordOutcome(hook.id, 1, outcome('retrying', 6, `echo: ${SUBMITTER}`));
      await stores.log.claimAttempt(inFlight.id, 1, { startedAt: at(5), leaseUntil: at(125) });
      await stores.log.claimAttempt(erasure.id, 1, { startedAt: at(10), leaseUntil: at(130) });
      await stores.log.recordOutcome(erasure.id, 1, outcome('retrying', 11, 'busy, try later'));
      return { scope: { orgId }, submissionId, auto, mail, hook, inFlight, erasure };
    }

    const everything = async (scope: { orgId: string }, submissionId: string) => {
      const deliveries = await stores.log.listBySubmission(scope, submissionId);
      const attempts = await Promise.all(deliveries.map((d) => stores.log.listAttempts(scope, d.id)));
      return { deliveries, attempts };
    };

    it('redacts email targets and every response text of a submission, and keeps the outcomes', async () => {
      const { scope, submissionId, auto, mail, hook, inFlight, erasure } = await attempted();
      const other = delivery({ orgId: scope.orgId, purpose: 'autoresponse', target: SUBMITTER });
      await stores.log.planDeliveries([other]);
      const before = await everything(scope, submissionId);
      expect(JSON.stringify(before)).toContain(SUBMITTER);
      // Another organization's erasure of the same submission id changes nothing.
      await stores.log.redactSubmission({ orgId: `org_${randomUUID()}` }, submissionId);
      expect(await everything(scope, submissionId)).toEqual(before);

      await stores.log.redactSubmission(scope, submissionId);
      const after = await everything(scope, submissionId);
      expect(JSON.stringify(after)).not.toContain(SUBMITTER);
      expect(JSON.stringify(after)).not.toContain('owner@example.com');
      const byId = new Map(after.deliveries.map((d) => [d.id, d]));
      const [autoBefore, mailBefore, hookBefore] = before.deliveries;
      const erasedText = (d: Delivery | undefined) => ({
        ...d,
        lastResponse: d?.lastResponse && { ...d.lastResponse, text: ERASED },
      });
      expect(byId.get(auto.id)).toEqual({ ...erasedText(autoBefore), target: ERASED });
      expect(byId.get(mail.id)).toEqual({ ...erasedText(mailBefore), target: ERASED });
      expect(byId.get(hook.id)).toEqual(erasedText(hookBefore));
      expect(byId.get(inFlight.id)).toMatchObject({ target: ERASED, lastClaimed: 1, lastResponse: null });
      // A delivery of `submission.erased` was sent no content: what its receiver answered stays.
      expect(byId.get(erasure.id)).toEqual(before.deliveries.find((d) => d.id === erasure.id));
      expect((await stores.log.listAttempts(scope, erasure.id))[0]?.outcome?.response?.text).toBe('busy, try later');
      expect(byId.get(auto.id)).toMatchObject({ status: 'succeeded', attempts: 2, messageId: expect.any(String) });
      const redacted = (list: typeof after.attempts) => list.flat().filter((a) => a.deliveryId !== erasure.id);
      expect(redacted(after.attempts).map((a) => [a.attempt, a.outcome?.status, a.outcome?.response])).toEqual(
        redacted(before.attempts).map((a) => [
          a.attempt,
          a.outcome?.status,
          a.outcome?.response && { ...a.outcome.response, text: ERASED },
        ]),
      );
      // Another submission's delivery to the same address stays.
      expect(await stores.log.getDelivery(other, other.id)).toEqual(other);
    });

    it('leaves a webhook delivery retrying, and is idempotent', async () => {
      const { scope, submissionId, hook } = await attempted();
      await stores.log.redactSubmission(scope, submissionId);
      const once = await everything(scope, submissionId);
      await stores.log.redactSubmission(scope, submissionId);
      expect(await everything(scope, submissionId)).toEqual(once);
      const due = await stores.log.listDue(at(66), 100_000);
      expect(due.find((d) => d.id === hook.id)).toMatchObject({ status: 'retrying', target: hook.target });
      expect(await stores.log.claimAttempt(hook.id, 2, { startedAt: at(66), leaseUntil: at(186) })).toEqual({
        claimed: true,
      });
      await stores.log.recordOutcome(hook.id, 2, outcome('succeeded', 67, 'ok'));
      expect(await stores.log.getDelivery(scope, hook.id)).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        lastResponse: { code: '250', text: 'ok' },
      });
      await stores.log.redactSubmission(scope, randomUUID());
    });
  });
}
