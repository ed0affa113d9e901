import type { Clock, Logger } from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import { composeWebhookDisabled } from '../../email/webhook-disabled.tsx';
import type {
  Delivery,
  NotificationStores,
  VerifiedRecipients,
  WebhookEndpoint,
  WebhookEndpointStore,
} from '../../store/index.ts';

/** Deliveries in a row failed for good (since the endpoint was last enabled) that disable it. */
export const FAILURES_BEFORE_DISABLING = 5;
/** Codes of failures that say nothing about the endpoint: they neither count towards disabling nor break a run. */
const NOT_THE_ENDPOINTS_FAULT = new Set(['GONE', 'WEBHOOK_ENDPOINT_DISABLED', 'ABANDONED']);

export interface EndpointHealthDeps {
  stores: Pick<NotificationStores, 'log' | 'views'>;
  endpoints: WebhookEndpointStore;
  /** Tells the organization's verified addresses that an endpoint was disabled. */
  mailer: Mailer;
  recipients: VerifiedRecipients;
  clock: Clock;
  logger: Logger;
  publicUrl: string;
}

/** Whether the endpoint's latest final deliveries since `enabledAt` are `FAILURES_BEFORE_DISABLING` failures. */
async function failingInARow(deps: EndpointHealthDeps, endpoint: WebhookEndpoint) {
  const scope = { orgId: endpoint.orgId };
  const { enabledAt } = endpoint;
  const recent = await deps.stores.log.listByTarget(scope, endpoint.id, 4 * FAILURES_BEFORE_DISABLING);
  const finals = recent
    .filter((d) => (d.status === 'succeeded' || d.status === 'failed') && d.updatedAt >= enabledAt)
    .filter((d) => !NOT_THE_ENDPOINTS_FAULT.has(d.lastResponse?.code ?? ''))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, FAILURES_BEFORE_DISABLING);
  return finals.length === FAILURES_BEFORE_DISABLING && finals.every((d) => d.status === 'failed');
}

/**
 * The REST hooks convention (Zapier, Make, n8n): a target answering 410 Gone no longer wants the hook, as when a
 * platform's unsubscribe never arrived. The hook is deleted, not disabled, and nobody is mailed: it is the hook's
 * normal end. Its planned deliveries then fail as `GONE`; the platform subscribes anew when switched on again.
 */
async function unsubscribe(deps: EndpointHealthDeps, endpoint: WebhookEndpoint) {
  await deps.endpoints.remove({ orgId: endpoint.orgId }, endpoint.id);
  deps.logger.info({ endpointId: endpoint.id, formId: endpoint.formId }, 'rest hook unsubscribed by a 410 Gone');
}

/**
 * After a delivery's final outcome: disables its endpoint when it should be, or deletes a REST hook whose target
 * answered 410 (idempotent).
 */
export async function afterFinal(deps: EndpointHealthDeps, delivery: Delivery): Promise<void> {
  const { endpoints, clock } = deps;
  if (delivery.status !== 'failed' || !delivery.targetId) return;
  const scope = { orgId: delivery.orgId };
  const endpoint = await endpoints.get(scope, delivery.targetId);
  if (!endpoint?.enabled) return;
  const gone = delivery.lastResponse?.code === '410';
  if (gone && endpoint.kind === 'rest-hook') return unsubscribe(deps, endpoint);
  if (!gone && !(await failingInARow(deps, endpoint))) return;
  const reason = gone
    ? 'The endpoint answered 410 Gone'
    : `${FAILURES_BEFORE_DISABLING} deliveries in a row failed (last: ${delivery.lastResponse?.code ?? 'unknown'})`;
  // Recorded for the time it was enabled at `enabledAt`, never written on the endpoint (one writer per document):
  // it can neither undo a person's concurrent change nor outlive a re-enabling.
  await endpoints.disable(endpoint, { reason, at: clock.now().toISOString() });
  deps.logger.warn({ endpointId: endpoint.id, formId: endpoint.formId, reason }, 'webhook endpoint disabled');
  // Once per disabling (per time it was enabled), whichever instance disabled it.
  if (await endpoints.claimNotice(`disabled:${endpoint.id}:${endpoint.enabledAt}`)) {
    await tellOrganization(deps, { ...endpoint, disabledReason: reason });
  }
}

/** Mails each verified notification address of the organization; best effort, one try (the dashboard shows it too). */
async function tellOrganization(deps: EndpointHealthDeps, endpoint: WebhookEndpoint) {
  const form = await deps.stores.views.getForm({ orgId: endpoint.orgId }, endpoint.formId);
  if (!form) return;
  const settingsUrl = `${deps.publicUrl}/dashboard/forms/${encodeURIComponent(form.slug)}/settings`;
  for (const to of await deps.recipients.listVerified(endpoint.orgId)) {
    try {
      const reason = endpoint.disabledReason ?? 'it kept failing';
      await deps.mailer.send(
        await composeWebhookDisabled({ to, formName: form.name, url: endpoint.url, reason, settingsUrl }),
      );
    } catch (err) {
      deps.logger.warn(
        { err: { name: (err as Error).name }, endpointId: endpoint.id },
        'disabled-webhook notice not sent',
      );
    }
  }
}
