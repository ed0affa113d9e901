import { randomUUID } from 'node:crypto';
import { encodeEvent, type SubscriptionChanged, Topics } from '@formgate/contracts';

/** Builders of the events billing consumes, as their producers publish them. */

export const submissionData = (orgId: string, receivedAt: string, held = false) => ({
  submissionId: randomUUID(),
  formId: 'form-1',
  orgId,
  receivedAt,
  fields: [{ name: 'message', value: '<script>hostile</script>' }],
  files: [],
  meta: {},
  spam: { isSpam: false, reasons: [] },
  held,
});
export type SubmissionData = ReturnType<typeof submissionData>;

export const received = (data: SubmissionData) => ({
  key: data.formId,
  value: encodeEvent(Topics.ingestSubmission, {
    id: randomUUID(),
    type: 'submission.received',
    version: 1,
    occurredAt: data.receivedAt,
    data,
  }),
});

export const released = (data: SubmissionData, releasedAt: string) => ({
  key: data.formId,
  value: encodeEvent(Topics.formsSubmission, {
    id: randomUUID(),
    type: 'submission.released',
    version: 1,
    occurredAt: releasedAt,
    data: { ...data, held: false, releasedAt },
  }),
});

export const subscriptionChanged = (
  orgId: string,
  changedAt: string,
  data: Partial<SubscriptionChanged['data']> = {},
  id: string = randomUUID(),
) => ({
  key: orgId,
  value: encodeEvent(Topics.billingSubscription, {
    id,
    type: 'subscription.changed',
    version: 1,
    occurredAt: changedAt,
    data: {
      orgId,
      planId: 'pro',
      status: 'active',
      interval: 'month',
      periodStart: changedAt,
      periodEnd: null,
      cancelAtPeriodEnd: false,
      trialEnd: null,
      stripeSubscriptionId: 'sub_test',
      changedAt,
      ...data,
    },
  }),
});
