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

/** A not-spam mark of a spam submission, carrying it (issue 14): a release from spam, made at `markedAt`. */
export const releasedFromSpam = (data: SubmissionData, markedAt: string, id: string = randomUUID()) => ({
  key: data.formId,
  value: encodeEvent(Topics.formsSubmission, {
    id,
    type: 'submission.spam-marked',
    version: 1,
    occurredAt: markedAt,
    data: {
      submissionId: data.submissionId,
      formId: data.formId,
      orgId: data.orgId,
      receivedAt: data.receivedAt,
      wasSpam: true,
      spam: false,
      submission: { ...data, held: false as const, spam: { isSpam: false, reasons: [] } },
    },
  }),
});

/** A spam mark without the submission (not a release): `spam` as given. */
export const spamMarked = (data: SubmissionData, markedAt: string, spam: boolean) => ({
  key: data.formId,
  value: encodeEvent(Topics.formsSubmission, {
    id: randomUUID(),
    type: 'submission.spam-marked',
    version: 1,
    occurredAt: markedAt,
    data: {
      submissionId: data.submissionId,
      formId: data.formId,
      orgId: data.orgId,
      receivedAt: data.receivedAt,
      wasSpam: !spam,
      spam,
    },
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
