import { AppError, type Clock } from '@formgate/kit';
import type { Delivery, NotificationStores } from '../store/index.ts';
import { channelOf, type DeliveryChannels } from './channel.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import { newDelivery } from './plan-deliveries.ts';

export interface ResendDeps {
  stores: Pick<NotificationStores, 'log' | 'views'>;
  runner: DeliveryRunner;
  channels: DeliveryChannels;
  clock: Clock;
  attemptLeaseMs?: number;
}

/**
 * Plans a new delivery `id` repeating `original` as its channel would plan it now (`resendOf`: the endpoint's
 * current URL; refused when the address is no longer verified, the endpoint gone or disabled), and starts its
 * attempt. Resolves once planned, with `attempted`: the delivery after its attempt, published (null: held by another
 * instance). Planning the same `id` again plans nothing and attempts nothing (a replay repeated).
 */
export async function resendDelivery(deps: ResendDeps, original: Delivery, id: string) {
  const type = original.webhookEvent?.type;
  const needsCopy = type !== 'submission.deleted' && type !== 'submission.erased';
  if (needsCopy && !(await deps.stores.views.getSubmission({ orgId: original.orgId }, original.submissionId))) {
    throw new AppError('NOTIFICATIONS_SUBMISSION_GONE');
  }
  const target = await channelOf(deps.channels, original).resendOf(original);
  const { orgId, formId, submissionId, channel } = original;
  const fields = { id, orgId, formId, submissionId, channel, purpose: target.purpose, target: target.target };
  const [planned] = await deps.stores.log.planDeliveries([
    { ...newDelivery(deps, { ...fields, resendOf: original.id }), ...target },
  ]);
  if (!planned) throw new Error('planDeliveries returned nothing');
  const attempted =
    planned.lastClaimed > 0
      ? Promise.resolve(planned)
      : deps.runner.attempt(planned).then(async (after) => {
          // A bus outage leaves the outcome marked unpublished: the retry worker publishes it.
          if (after) await deps.runner.publishOutcomes([after]).catch(() => {});
          return after;
        });
  return { planned, attempted };
}
