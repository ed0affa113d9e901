import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_NOTIFICATIONS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_TUNING } from '../src/deliveries/tuning.ts';
import { startReceiver, type WebhookReceiver } from './webhook-receiver.ts';
import { startWebhookService, type WebhookService } from './webhook-service-harness.ts';

const OWNER = 'owner@example.com';
const SUBMITTER = 'late.person@example.com';
/** How far a lagging consumer is behind: past the threshold of the tombstone check. */
const BEHIND_MS = DELIVERY_TUNING.goneCheckAfterMs + 1_000;

type Deletion = 'erasure' | 'expired' | 'plain';

/**
 * A submission deleted (erased, expired, deleted through the API) while the planning consumers of
 * `ingest.submission` were behind: its `submission.received` reaches them after the deletion was handled (as in
 * distributed mode, where Kafka still holds the record).
 */
describe('a submission deleted before the planning consumers got to it, on the embedded log and SQLite', () => {
  let svc: WebhookService;
  let receiver: WebhookReceiver;
  /** The submission ids of every tombstone read the stores were asked for, in order. */
  const reads: string[][] = [];
  beforeAll(async () => {
    svc = await startWebhookService({ allowPrivateTargets: true });
    receiver = await startReceiver();
    const { gone } = svc.stores;
    const listGone = gone.listGone.bind(gone);
    gone.listGone = (submissions) => {
      reads.push(submissions.map((s) => s.submissionId));
      return listGone(submissions);
    };
  });
  afterAll(async () => {
    await receiver.close();
    await svc.stop();
  });

  /** A form mailing its owner and sending its submissions to an endpoint of its own. */
  async function form() {
    const orgId = `org_${randomUUID()}`;
    await svc.verify(orgId, OWNER);
    const f = await svc.publishForm(orgId, { notifications: { ...DEFAULT_FORM_NOTIFICATIONS, emails: [OWNER] } });
    const path = `/${randomUUID()}`;
    await svc.addWebhook(f, { url: `${receiver.url}${path}` });
    return { form: f, path };
  }

  /** The deletion as the forms service publishes it (`submission.deleted`), with nothing of the submission kept. */
  const deleteSubmission = async (f: Form, submissionId: string, how: Deletion) => {
    if (how === 'plain') return svc.change(f, submissionId, { deleted: true });
    const data = { submissionId, formId: f.id, orgId: f.orgId, receivedAt: new Date(svc.clock.now).toISOString() };
    const value = encodeEvent(Topics.formsSubmission, {
      id: randomUUID(),
      type: 'submission.deleted',
      version: 1,
      occurredAt: new Date(svc.clock.now).toISOString(),
      data: { ...data, wasSpam: false, ...(how === 'expired' ? { expired: true } : { erasure: 'er_1' }) },
    });
    await svc.bus.publish(Topics.formsSubmission, [{ key: f.id, value }]);
  };

  const isGone = async (f: Form, submissionId: string) =>
    (await svc.stores.gone.listGone([{ orgId: f.orgId, submissionId }])).has(submissionId);

  /** Waits until both planning groups sent `submissionId` (its email and its webhook succeeded). */
  const delivered = (f: Form, submissionId: string) =>
    eventually(async () =>
      expect((await svc.deliveriesOf(f, submissionId)).map((d) => [d.channel, d.status]).sort()).toEqual([
        ['email', 'succeeded'],
        ['webhook', 'succeeded'],
      ]),
    );
  const mailsOf = (submissionId: string) => svc.mails().filter((m) => m.subject.endsWith(submissionId));
  const hooksOf = (path: string, submissionId: string) =>
    receiver.requests.filter((r) => r.url === path && r.body.includes(submissionId));

  /** Nothing of `submissionId` planned, kept or sent, while `control` was. */
  async function expectSkipped(f: Form, path: string, submissionId: string, control: string) {
    await delivered(f, control);
    expect(await svc.stores.views.getSubmission({ orgId: f.orgId }, control)).not.toBeNull();
    expect(mailsOf(control)).toHaveLength(1);
    expect(hooksOf(path, control)).toHaveLength(1);
    // Both groups planned `control` after it in the same partition: they are done with it.
    expect(await svc.deliveriesOf(f, submissionId)).toEqual([]);
    expect(await svc.stores.views.getSubmission({ orgId: f.orgId }, submissionId)).toBeNull();
    expect(mailsOf(submissionId)).toEqual([]);
    expect(hooksOf(path, submissionId)).toEqual([]);
  }

  it.each<Deletion>(['erasure', 'expired', 'plain'])(
    'skips a submission whose %s deletion was handled first, with one tombstone read per batch',
    async (how) => {
      const { form: f, path } = await form();
      // Both received now; the consumers get to them `BEHIND_MS` later, after the deletion of one.
      const late = svc.submissionEvent(f, { fields: [{ name: 'email', value: SUBMITTER }] });
      const control = svc.submissionEvent(f);
      await deleteSubmission(f, late.submissionId, how);
      await eventually(async () => expect(await isGone(f, late.submissionId)).toBe(true));
      svc.clock.now += BEHIND_MS;
      await svc.bus.publish(
        Topics.ingestSubmission,
        [late, control].map(({ key, value }) => ({ key, value })),
      );

      await expectSkipped(f, path, late.submissionId, control.submissionId);
      expect(JSON.stringify(svc.mails())).not.toContain(SUBMITTER);
      // One read per batch of each group (webhooks, emails), for both records at once (the test reads `late` alone).
      const mine = reads.filter((ids) => ids.includes(control.submissionId));
      expect(mine).toEqual([
        [late.submissionId, control.submissionId],
        [late.submissionId, control.submissionId],
      ]);
    },
  );

  it('plans a submission received just now without reading any tombstone', async () => {
    const { form: f, path } = await form();
    const fresh = await svc.submit(f);
    await delivered(f, fresh);
    expect(await svc.stores.views.getSubmission({ orgId: f.orgId }, fresh)).not.toBeNull();
    expect(mailsOf(fresh)).toHaveLength(1);
    expect(hooksOf(path, fresh)).toHaveLength(1);
    expect(reads.filter((ids) => ids.includes(fresh))).toEqual([]);
  });

  // Last: it sets the clock to the real time, which the log stamps records with.
  it('tells a record behind by its log timestamp, its event’s time being recent', async () => {
    const { form: f, path } = await form();
    // The log stamps the records with the real time, a minute before the clock (their `occurredAt`).
    svc.clock.now = Date.now() + 60_000;
    const late = svc.submissionEvent(f);
    const control = svc.submissionEvent(f);
    await deleteSubmission(f, late.submissionId, 'erasure');
    await eventually(async () => expect(await isGone(f, late.submissionId)).toBe(true));
    await svc.bus.publish(
      Topics.ingestSubmission,
      [late, control].map(({ key, value }) => ({ key, value })),
    );

    await expectSkipped(f, path, late.submissionId, control.submissionId);
  });
});
