import { createHash } from 'node:crypto';
import type { OutgoingMessage } from '@formgate/bus';
import { encodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';

/**
 * The `billing.quota` record of an organization's quota view in a period, keyed by organization. The id names the
 * content (a digest of it), so republishing the same view is the same event, and any change (a count, the plan, the
 * held submissions, the emails) is a new one.
 */
export function quotaUpdatedMessage(view: QuotaUpdated['data'], occurredAt: string): OutgoingMessage {
  // The time storage was measured is not content: the same measure taken again is the same event.
  const content = view.fileStorage ? { ...view, fileStorage: { ...view.fileStorage, measuredAt: undefined } } : view;
  const digest = createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 16);
  return {
    key: view.orgId,
    value: encodeEvent(Topics.billingQuota, {
      id: `${view.orgId}:${view.period}:${digest}`,
      type: 'quota.updated',
      version: 1,
      occurredAt,
      data: view,
    }),
  };
}
