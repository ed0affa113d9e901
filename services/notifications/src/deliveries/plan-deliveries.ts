import type { Clock, Ids } from '@formgate/kit';
import { submitterAddress } from '../email/headers.ts';
import type { Delivery, DeliveryLog, FormView, StoredSubmission, VerifiedRecipients } from '../store/index.ts';
import { DELIVERY_TUNING } from './tuning.ts';

/**
 * Autoresponse limits, counted over the deliveries already planned (a window count, not a token bucket): at most
 * `perAddress` autoresponses to one address from one form per `addressWindowMs`, and `perForm` from one form per
 * `formWindowMs`. Two instances planning at once may each pass the check: the limit is approximate by one or two.
 */
export const AUTORESPONSE_LIMITS = {
  perAddress: 2,
  addressWindowMs: 86_400_000,
  perForm: 100,
  formWindowMs: 3_600_000,
};

/**
 * The autoresponse's address: the submitter's (`submitterAddress` of the mail module, the same rule as `Reply-To`),
 * lower-cased so a redelivery and the limits see one target.
 */
const autoresponseTarget = (submission: StoredSubmission) => submitterAddress(submission)?.toLowerCase();

export interface PlanDeps {
  log: Pick<DeliveryLog, 'getDelivery' | 'countSince'>;
  recipients: VerifiedRecipients;
  clock: Clock;
  ids: Ids;
  /** The attempt lease: a planned first attempt is due again after it. */
  attemptLeaseMs?: number;
}

/**
 * The autoresponses planned so far by one planning of a form's submissions (a consumer batch), not stored yet: the
 * limits count them with the stored ones, so the submissions of a batch are limited as if planned one by one.
 */
export interface AutoresponseTally {
  total: number;
  byTarget: Map<string, number>;
}

export const newTally = (): AutoresponseTally => ({ total: 0, byTarget: new Map() });

/** The deterministic id of a planned delivery: a redelivered submission plans the same ones. */
export const plannedDeliveryId = (ids: Ids, d: Pick<Delivery, 'submissionId' | 'channel' | 'purpose' | 'target'>) =>
  ids.derived('delivery', d.submissionId, d.channel, d.purpose, d.target);

export function newDelivery(
  deps: Pick<PlanDeps, 'clock' | 'attemptLeaseMs'>,
  fields: Pick<Delivery, 'id' | 'orgId' | 'formId' | 'submissionId' | 'channel' | 'purpose' | 'target' | 'resendOf'>,
): Delivery {
  const now = deps.clock.now();
  return {
    targetId: null,
    status: 'pending',
    attempts: 0,
    lastClaimed: 0,
    lastResponse: null,
    messageId: null,
    // Whoever plans makes the first attempt at once; the workers look at it only if that did not happen in time.
    nextAttemptAt: new Date(now.getTime() + (deps.attemptLeaseMs ?? DELIVERY_TUNING.attemptLeaseMs)).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    ...fields,
  };
}

/**
 * The email deliveries a submission calls for: one notification per address the form lists (plus `_cc`) that is
 * verified, and an autoresponse to the submitter's valid address when the form enables it and the limits allow.
 * The caller has already ruled out spam, held submissions and forms with notifications off.
 */
export async function deliveriesFor(
  deps: PlanDeps,
  form: FormView,
  submission: StoredSubmission,
  tally: AutoresponseTally = newTally(),
): Promise<Delivery[]> {
  const verified = new Set((await deps.recipients.listVerified(form.orgId)).map((a) => a.trim().toLowerCase()));
  const wanted = [...form.notifications.emails, ...(submission.meta.cc ?? [])].map((a) => a.trim().toLowerCase());
  const common = { orgId: form.orgId, formId: form.id, submissionId: submission.submissionId, resendOf: null };
  const planned: Delivery[] = [];
  for (const target of new Set(wanted.filter((a) => verified.has(a)))) {
    const key = { ...common, channel: 'email' as const, purpose: 'notification', target };
    planned.push(newDelivery(deps, { ...key, id: plannedDeliveryId(deps.ids, key) }));
  }
  const submitter = form.notifications.autoresponse.enabled ? autoresponseTarget(submission) : undefined;
  if (submitter) {
    const key = { ...common, channel: 'email' as const, purpose: 'autoresponse', target: submitter };
    const id = plannedDeliveryId(deps.ids, key);
    // A redelivery keeps an autoresponse planned the first time, whatever the limits say now.
    if (await deps.log.getDelivery({ orgId: form.orgId }, id)) {
      planned.push(newDelivery(deps, { ...key, id }));
    } else if (await autoresponseAllowed(deps, form.id, submitter, tally)) {
      tally.total += 1;
      tally.byTarget.set(submitter, (tally.byTarget.get(submitter) ?? 0) + 1);
      planned.push(newDelivery(deps, { ...key, id }));
    }
  }
  return planned;
}

async function autoresponseAllowed(deps: PlanDeps, formId: string, target: string, tally: AutoresponseTally) {
  const now = deps.clock.now().getTime();
  const since = (ms: number) => new Date(now - ms).toISOString();
  const L = AUTORESPONSE_LIMITS;
  const [toAddress, fromForm] = await Promise.all([
    deps.log.countSince({ formId, purpose: 'autoresponse', target, since: since(L.addressWindowMs) }),
    deps.log.countSince({ formId, purpose: 'autoresponse', since: since(L.formWindowMs) }),
  ]);
  return toAddress + (tally.byTarget.get(target) ?? 0) < L.perAddress && fromForm + tally.total < L.perForm;
}
