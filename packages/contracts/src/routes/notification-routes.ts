import { z } from 'zod';
import { listOf } from '../api.ts';
import type { ErrorCode } from '../errors.ts';
import {
  DeliveryDtoSchema,
  NotificationEmailDtoSchema,
  ReplayRequestSchema,
  ReplayResultDtoSchema,
} from '../notifications.ts';
import { NotificationEmailRequestSchema } from '../orgs.ts';
import {
  CreateWebhookRequestSchema,
  UpdateWebhookRequestSchema,
  WebhookEndpointDtoSchema,
  WebhookEndpointWithSecretDtoSchema,
} from '../webhooks.ts';
import { defineRoute, json, noContent, orgRoute } from './define-route.ts';
import { FORM } from './form-routes.ts';

const WEBHOOK: ErrorCode[] = [...FORM, 'NOTIFICATIONS_WEBHOOK_NOT_FOUND'];
const WEBHOOK_URL: ErrorCode[] = ['NOTIFICATIONS_WEBHOOK_URL_INVALID', 'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN'];

/** A form's deliveries and webhook endpoints: the notifications service. */
export const deliveryRoutes = {
  listDeliveries: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/submissions/:submissionId/deliveries', 'notifications'),
    tag: 'Deliveries',
    summary: "A submission's delivery log (emails, webhooks)",
    responses: [json(200, 'The deliveries', listOf(DeliveryDtoSchema))],
    errors: FORM,
  }),
  resendDelivery: defineRoute({
    ...orgRoute(
      'POST',
      '/api/v1/forms/:formId/submissions/:submissionId/deliveries/:deliveryId/resend',
      'notifications',
      { form: ['update'] },
    ),
    tag: 'Deliveries',
    summary: 'Send a delivery again (its first attempt is awaited up to 3 s)',
    request: { body: z.strictObject({}) },
    responses: [json(202, 'The new delivery', DeliveryDtoSchema)],
    errors: [
      ...FORM,
      'NOTIFICATIONS_DELIVERY_NOT_FOUND',
      'NOTIFICATIONS_SUBMISSION_GONE',
      'NOTIFICATIONS_RECIPIENT_NOT_VERIFIED',
      'NOTIFICATIONS_WEBHOOK_NOT_FOUND',
      'NOTIFICATIONS_WEBHOOK_DISABLED',
    ],
  }),
  replayDeliveries: defineRoute({
    ...orgRoute('POST', '/api/v1/forms/:formId/deliveries/replay', 'notifications', { form: ['update'] }),
    tag: 'Deliveries',
    summary: "Re-attempt a form's failed deliveries of a time range (idempotent per delivery)",
    request: { body: ReplayRequestSchema },
    responses: [json(202, 'What was replayed', ReplayResultDtoSchema)],
    errors: FORM,
  }),
  listWebhooks: defineRoute({
    ...orgRoute('GET', '/api/v1/forms/:formId/webhooks', 'notifications'),
    tag: 'Webhooks',
    summary: "A form's webhook endpoints (URLs redacted for members who cannot manage them)",
    responses: [json(200, 'The endpoints', listOf(WebhookEndpointDtoSchema))],
    errors: FORM,
  }),
  createWebhook: defineRoute({
    ...orgRoute('POST', '/api/v1/forms/:formId/webhooks', 'notifications', { form: ['update'] }),
    tag: 'Webhooks',
    summary: 'Add a webhook endpoint; the answer is the only time its secret is shown',
    request: { body: CreateWebhookRequestSchema },
    responses: [json(201, 'The endpoint, with `secret`', WebhookEndpointWithSecretDtoSchema)],
    errors: [...FORM, ...WEBHOOK_URL, 'NOTIFICATIONS_WEBHOOK_LIMIT_REACHED'],
  }),
  updateWebhook: defineRoute({
    ...orgRoute('PATCH', '/api/v1/forms/:formId/webhooks/:webhookId', 'notifications', { form: ['update'] }),
    tag: 'Webhooks',
    summary: 'Change a webhook endpoint (`enabled: true` re-enables it)',
    request: { body: UpdateWebhookRequestSchema },
    responses: [json(200, 'The endpoint', WebhookEndpointDtoSchema)],
    errors: [...WEBHOOK, ...WEBHOOK_URL, 'NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE'],
  }),
  deleteWebhook: defineRoute({
    ...orgRoute('DELETE', '/api/v1/forms/:formId/webhooks/:webhookId', 'notifications', { form: ['update'] }),
    tag: 'Webhooks',
    summary: 'Remove a webhook endpoint',
    responses: [noContent('Removed')],
    errors: WEBHOOK,
  }),
  rotateWebhookSecret: defineRoute({
    ...orgRoute('POST', '/api/v1/forms/:formId/webhooks/:webhookId/rotate-secret', 'notifications', {
      form: ['update'],
    }),
    tag: 'Webhooks',
    summary: 'A new signing secret (the previous one keeps signing for 24 h)',
    responses: [json(200, 'The endpoint, with its new `secret`', WebhookEndpointWithSecretDtoSchema)],
    errors: [...WEBHOOK, 'NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE'],
  }),
};

/** The organization's notification addresses: the notifications service. */
export const notificationEmailRoutes = {
  // Public: the signed token in the mailed link is the credential.
  verifyNotificationEmail: defineRoute({
    method: 'GET',
    path: '/api/v1/notification-emails/verify',
    service: 'notifications',
    auth: 'public',
    tag: 'Notification emails',
    summary: "The mailed verification link: redirects to the dashboard's success or invalid page",
    request: { query: z.object({ token: z.string().optional() }) },
    responses: [{ status: 303, description: 'To the success page, or to `?verification=invalid`', redirect: true }],
  }),
  listNotificationEmails: defineRoute({
    ...orgRoute('GET', '/api/v1/notification-emails', 'notifications'),
    tag: 'Notification emails',
    summary: "The organization's notification addresses",
    responses: [json(200, 'The addresses', listOf(NotificationEmailDtoSchema))],
  }),
  addNotificationEmail: defineRoute({
    ...orgRoute('POST', '/api/v1/notification-emails', 'notifications', { organization: ['update'] }),
    tag: 'Notification emails',
    summary: 'Add an address and mail it a verification link (200: it was already listed; the link is sent again)',
    request: { body: NotificationEmailRequestSchema },
    responses: [
      json(201, 'Added', NotificationEmailDtoSchema),
      json(200, 'Already listed, not verified: the link was sent again', NotificationEmailDtoSchema),
    ],
    errors: [
      'NOTIFICATIONS_EMAIL_LIMIT_REACHED',
      'NOTIFICATIONS_EMAIL_ALREADY_VERIFIED',
      'NOTIFICATIONS_VERIFICATION_RECENTLY_SENT',
      'NOTIFICATIONS_MAIL_UNAVAILABLE',
    ],
  }),
  deleteNotificationEmail: defineRoute({
    ...orgRoute('DELETE', '/api/v1/notification-emails/:emailId', 'notifications', { organization: ['update'] }),
    tag: 'Notification emails',
    summary: 'Remove an address',
    responses: [noContent('Removed')],
    errors: ['NOTIFICATIONS_EMAIL_NOT_FOUND'],
  }),
};
