import type { FormgateClient, RequestOptions } from '@formgate/client';

/** A webhook endpoint the canary's submission must reach (named by id: a Slack or Discord URL is a credential). */
export interface ExpectedWebhook {
  id: string;
  enabled: boolean;
  disabledReason: string | null;
}

/**
 * What one run sends and expects, read through the API at the start of every run (settings change between runs):
 * the form's key, the addresses it mails and the endpoints it calls for a new submission.
 */
export interface CanaryPlan {
  formId: string;
  formKey: string;
  /** The form's notification addresses that are verified (lower case): only those are mailed. */
  emails: string[];
  /** Why no email is expected (notifications off, no verified address); `mailed` is then not checked. */
  noMail: string | null;
  /** The endpoints subscribed to `submission.created`, disabled ones included: a disabled one fails `webhooked`. */
  webhooks: ExpectedWebhook[];
  /** Why no webhook is expected; `webhooked` is then not checked. */
  noWebhook: string | null;
}

/** The form, the organization's addresses and the form's endpoints, as `notifications` will judge them. */
export async function readPlan(client: FormgateClient, formId: string, init: RequestOptions): Promise<CanaryPlan> {
  const [form, addresses, endpoints] = await Promise.all([
    client.forms.get(formId, init),
    client.notificationEmails.list(init),
    client.webhooks.list(formId, init),
  ]);
  const verified = new Set(addresses.filter((a) => a.verified).map((a) => a.email.toLowerCase()));
  const notifications = form.settings.notifications;
  const listed = [...new Set(notifications.emails.map((e) => e.toLowerCase()))];
  const emails = notifications.enabled ? listed.filter((e) => verified.has(e)) : [];
  const webhooks = endpoints
    .filter((e) => e.events.includes('submission.created'))
    .map((e) => ({ id: e.id, enabled: e.enabled, disabledReason: e.disabledReason }));
  return {
    formId: form.id,
    formKey: form.key,
    emails,
    noMail: !notifications.enabled
      ? 'notifications are off for this form'
      : emails.length === 0
        ? `the form lists no verified notification address (${listed.length} listed)`
        : null,
    webhooks,
    noWebhook: webhooks.length === 0 ? 'the form has no webhook endpoint subscribed to submission.created' : null,
  };
}
