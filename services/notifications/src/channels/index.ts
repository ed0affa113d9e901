import type { DeliveryChannels } from '../deliveries/channel.ts';
import { createEmailChannel, type EmailChannelDeps } from './email.ts';
import { createWebhookChannel, type WebhookChannelDeps } from './webhook/webhook-channel.ts';

export { createEmailChannel } from './email.ts';
export { createWebhookChannel } from './webhook/webhook-channel.ts';

/** Both channels, cheapest first: a webhook (one POST) is started before a mail (a render and an SMTP exchange). */
export function createDeliveryChannels(
  deps: Omit<EmailChannelDeps, 'views'> & Omit<WebhookChannelDeps, 'timeoutMs'> & { webhookTimeoutMs?: number },
): DeliveryChannels {
  return [
    createWebhookChannel({ ...deps, timeoutMs: deps.webhookTimeoutMs }),
    createEmailChannel({ ...deps, views: deps.stores.views }),
  ];
}
