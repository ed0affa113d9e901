import {
  RestHookDtoSchema,
  RestHookSampleDtoSchema,
  RestHookSampleQuerySchema,
  SubscribeRestHookRequestSchema,
} from '../rest-hooks.ts';
import { defineRoute, json, noContent, orgRoute } from './define-route.ts';

/**
 * REST hooks for Zapier, Make and n8n (docs/integrations.md): subscribing and unsubscribing are the notifications
 * service's (a hook is a webhook endpoint of kind `rest-hook`); the sample is the forms service's, which holds the
 * submissions, built by the same function as a delivery's body.
 */
export const hookRoutes = {
  sampleRestHook: defineRoute({
    ...orgRoute('GET', '/api/v1/hooks/sample', 'forms'),
    tag: 'REST hooks',
    summary: "Up to 3 of a form's recent submissions as a REST hook delivers them, or one example",
    description:
      'For field mapping (Zapier `performList`, Make samples, n8n tests): the bodies a `rest-hook` delivery of ' +
      "`event` would carry for the form's 3 most recent submissions that have one (spam ones for `submission.spam`; " +
      'held ones and no-store ones whose content is gone are left out), newest first. With none, one made-up body ' +
      '(`id: "example"`, the field names the form has received, else `email` and `message`) and `example: true`.',
    request: { query: RestHookSampleQuerySchema },
    responses: [json(200, 'The sample', RestHookSampleDtoSchema)],
    errors: ['FORMS_FORM_NOT_FOUND'],
  }),
  subscribeRestHook: defineRoute({
    ...orgRoute('POST', '/api/v1/hooks', 'notifications', { form: ['update'] }),
    tag: 'REST hooks',
    summary: 'Subscribe a URL to one event of a form (a webhook endpoint of kind `rest-hook`)',
    description:
      "What a platform calls when a trigger is switched on. The hook is one of the form's webhook endpoints (at most " +
      '10): its deliveries are signed (Standard Webhooks headers, with `secret`), retried and logged like any ' +
      "endpoint's. A target answering 410 Gone is unsubscribed (the hook is deleted).",
    request: { body: SubscribeRestHookRequestSchema },
    responses: [json(201, 'The hook, with `secret` (shown this once)', RestHookDtoSchema)],
    errors: [
      'FORMS_FORM_NOT_FOUND',
      'NOTIFICATIONS_WEBHOOK_URL_INVALID',
      'NOTIFICATIONS_WEBHOOK_TARGET_FORBIDDEN',
      'NOTIFICATIONS_WEBHOOK_LIMIT_REACHED',
    ],
  }),
  unsubscribeRestHook: defineRoute({
    ...orgRoute('DELETE', '/api/v1/hooks/:hookId', 'notifications', { form: ['update'] }),
    tag: 'REST hooks',
    summary: 'Unsubscribe a REST hook (404 once it is gone, e.g. after its target answered 410)',
    responses: [noContent('Unsubscribed')],
    errors: ['NOTIFICATIONS_WEBHOOK_NOT_FOUND'],
  }),
};
