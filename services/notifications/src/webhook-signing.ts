/**
 * `@formgate/notifications/webhook-signing`: how webhook deliveries are signed (Standard Webhooks), for tools that
 * must sign exactly as they do (`formgate listen`), without loading the service.
 */
export { type SignWebhookInput, signWebhook, type WebhookSignatureHeaders } from './channels/webhook/signing.ts';
export { generateWebhookSecret, isWebhookSecret } from './endpoints/webhook-secret.ts';
