import type { OutgoingMessage } from '@formgate/bus';
import { encodeEvent, Topics } from '@formgate/contracts';

/**
 * The `billing.quota` record of an organization's usage in a period, keyed by organization. The id names the
 * count, so republishing the same count is the same event.
 */
export function quotaUpdatedMessage(
  quota: { orgId: string; period: string; used: number; max: number },
  occurredAt: string,
): OutgoingMessage {
  const { orgId, period, used, max } = quota;
  return {
    key: orgId,
    value: encodeEvent(Topics.billingQuota, {
      id: `${orgId}:${period}:${used}`,
      type: 'quota.updated',
      version: 1,
      occurredAt,
      data: { orgId, period, submissionsUsed: used, submissionsMax: max, overQuota: used >= max },
    }),
  };
}
