import type { SubmissionReceived } from '@formgate/contracts';
import type { Delivery, FormView, WebhookEndpointStore } from '../store/index.ts';
import type { AttemptContext, DeliveryChannelKind } from './channel.ts';
import { deliveriesFor, newTally, type PlanDeps } from './plan-deliveries.ts';
import { subscribers, webhookDeliveriesFor } from './plan-webhook-deliveries.ts';

/** A received submission as the consumer decoded it. */
export interface Received {
  data: SubmissionReceived['data'];
  occurredAt: string;
}

/** What one channel plans for one submission: its deliveries, whether the copy is kept, what it read for them. */
export interface Planned {
  wanted: Delivery[];
  keepCopy: boolean;
  context: AttemptContext;
}

/**
 * How one channel plans the deliveries of received submissions: `forForm` reads once per form and consumer batch
 * what planning needs, and answers the planning of that form's submissions, called one after the other in log order.
 */
export interface SubmissionPlanner {
  forForm(form: FormView): Promise<(received: Received) => Promise<Planned>>;
}

export type PlannerDeps = PlanDeps & { endpoints: WebhookEndpointStore };

/** Emails, unless spam or the form's notifications are off; the autoresponse limits count the batch's own. */
const emailPlanner = (deps: PlannerDeps): SubmissionPlanner => ({
  async forForm(form) {
    const tally = newTally();
    return async ({ data }) => {
      const mails = !data.spam.isSpam && form.notifications.enabled;
      const wanted = mails ? await deliveriesFor(deps, form, data, tally) : [];
      return { wanted, keepCopy: wanted.length > 0, context: {} };
    };
  },
});

/**
 * A webhook to each enabled endpoint subscribed to `submission.created` (`submission.spam` for spam). The copy is
 * also kept when an endpoint may want a later mark as spam, which is sent from it.
 */
const webhookPlanner = (deps: PlannerDeps): SubmissionPlanner => ({
  async forForm(form) {
    const endpoints = await deps.endpoints.listByForm({ orgId: form.orgId }, form.id);
    return async ({ data, occurredAt }) => {
      const spam = data.spam.isSpam;
      const type = spam ? 'submission.spam' : 'submission.created';
      const event = { type, occurredAt, receivedAt: data.receivedAt } as const;
      const cause = data.submissionId;
      const wanted = webhookDeliveriesFor(deps, { form, submissionId: cause, cause, event, endpoints });
      const spamLater = !spam && subscribers(endpoints, 'submission.spam').length > 0;
      return { wanted, keepCopy: wanted.length > 0 || spamLater, context: { endpoints } };
    };
  },
});

const PLANNERS: Record<DeliveryChannelKind, (deps: PlannerDeps) => SubmissionPlanner> = {
  email: emailPlanner,
  webhook: webhookPlanner,
};

/**
 * The planning of one submission by every channel of `kinds`, per form: the planners' reads are made once per form,
 * their deliveries and contexts merged.
 */
export function createSubmissionPlanning(deps: PlannerDeps, kinds: readonly DeliveryChannelKind[]) {
  const planners = kinds.map((kind) => PLANNERS[kind](deps));
  return async (form: FormView) => {
    const perChannel = await Promise.all(planners.map((p) => p.forForm(form)));
    return async (received: Received): Promise<Planned> => {
      const planned: Planned[] = [];
      for (const plan of perChannel) planned.push(await plan(received));
      return {
        wanted: planned.flatMap((p) => p.wanted),
        keepCopy: planned.some((p) => p.keepCopy),
        context: Object.assign({ form, submission: received.data }, ...planned.map((p) => p.context)),
      };
    };
  };
}
