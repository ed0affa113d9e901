import {
  authorize,
  MAX_WEBHOOKS_PER_FORM,
  type WebhookEndpointDto,
  type WebhookEndpointWithSecretDto,
} from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, type Clock, type Ids, identityOf, mountRoute, requirePermission } from '@formgate/kit';
import { generateWebhookSecret } from '@formgate/kit/webhook-signing';
import { type Request, Router } from 'express';
import type { FormView, NotificationStores, WebhookEndpoint, WebhookEndpointStore } from '../store/index.ts';
import { checkWebhookUrl, redactWebhookUrl } from './webhook-url.ts';

/** How long a rotated-out secret keeps signing. */
export const PREVIOUS_SECRET_VALID_MS = 86_400_000;
/** The deliveries an endpoint's stats look at: its most recent ones. */
const STATS_WINDOW = 50;

export interface WebhooksRoutesDeps {
  stores: Pick<NotificationStores, 'log' | 'views'>;
  endpoints: WebhookEndpointStore;
  clock: Clock;
  ids: Ids;
  allowPrivateTargets: boolean;
}

/** An endpoint as the API shows it, with the stats of its recent deliveries; never its secret. */
async function endpointDto(deps: WebhooksRoutesDeps, e: WebhookEndpoint): Promise<WebhookEndpointDto> {
  const recent = await deps.stores.log.listByTarget({ orgId: e.orgId }, e.id, STATS_WINDOW);
  const succeeded = recent.filter((d) => d.status === 'succeeded').length;
  const failed = recent.filter((d) => d.status === 'failed').length;
  const expires = e.previousSecret?.expiresAt;
  return {
    id: e.id,
    formId: e.formId,
    url: e.url,
    kind: e.kind,
    events: e.events,
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    secretHint: e.secret.slice(-4),
    previousSecretExpiresAt: expires && expires > deps.clock.now().toISOString() ? expires : null,
    createdAt: e.createdAt,
    updatedAt: e.updatedAt,
    stats: {
      recent: recent.length,
      succeeded,
      failed,
      successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    },
  };
}

/** A new enabled endpoint of `form` (a webhook, or a REST hook), with a new secret. */
export function newEndpoint(
  deps: WebhooksRoutesDeps,
  form: FormView,
  body: Pick<WebhookEndpoint, 'url' | 'kind' | 'events'>,
): WebhookEndpoint {
  const now = deps.clock.now().toISOString();
  return {
    id: deps.ids.next(),
    orgId: form.orgId,
    formId: form.id,
    url: checkWebhookUrl(body.url, deps),
    kind: body.kind,
    events: body.events,
    enabled: true,
    disabledReason: null,
    enabledAt: now,
    secret: generateWebhookSecret(),
    previousSecret: null,
    createdAt: now,
    updatedAt: now,
    revision: 0,
  };
}

/** What a change asks the store to write: re-enabling starts a new `enabledAt`. */
function changesOf(
  deps: WebhooksRoutesDeps,
  body: ReturnType<typeof API_ROUTES.updateWebhook.request.body.parse>,
  current: WebhookEndpoint,
) {
  const now = deps.clock.now().toISOString();
  const reenabled = body.enabled === true && !current.enabled;
  return {
    url: body.url === undefined ? undefined : checkWebhookUrl(body.url, deps),
    kind: body.kind,
    events: body.events,
    enabled: body.enabled,
    // Re-enabled: failures before now no longer count, nor does the service's disabling (it was for the old
    // `enabledAt`). Giving `enabled` clears a reason (disabled by a person: none to show).
    ...(reenabled ? { enabledAt: now } : {}),
    updatedAt: now,
  };
}

/** A new secret; the current one keeps signing for `PREVIOUS_SECRET_VALID_MS`. */
function rotation(deps: WebhooksRoutesDeps, current: WebhookEndpoint) {
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS).toISOString();
  return {
    secret: generateWebhookSecret(),
    previousSecret: { secret: current.secret, expiresAt },
    updatedAt: now.toISOString(),
  };
}

/**
 * `/:formId/webhooks`: members list; owners and admins (`form: update`) create, change, delete and rotate. A form
 * of another organization (or not in the view yet) is `FORMS_FORM_NOT_FOUND`; an endpoint of another form
 * `NOTIFICATIONS_WEBHOOK_NOT_FOUND`. The secret is in the answers of creation and rotation only.
 */
export function webhooksRoutes(deps: WebhooksRoutesDeps) {
  const { stores, endpoints } = deps;
  const router = Router();

  const loadForm = async (req: Request): Promise<FormView> => {
    const form = await stores.views.getForm({ orgId: identityOf(req).orgId }, String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };
  const loadEndpoint = async (req: Request, form: FormView) => {
    const endpoint = await endpoints.get({ orgId: form.orgId }, String(req.params.webhookId));
    if (!endpoint || endpoint.formId !== form.id) throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    return endpoint;
  };
  const manage = async (req: Request) => {
    requirePermission(identityOf(req), { form: ['update'] });
    return loadForm(req);
  };

  const toDto = (e: WebhookEndpoint) => endpointDto(deps, e);
  const withSecret = async (e: WebhookEndpoint): Promise<WebhookEndpointWithSecretDto> => ({
    ...(await toDto(e)),
    secret: e.secret,
  });

  mountRoute(router, API_ROUTES.listWebhooks, async (req, res) => {
    const form = await loadForm(req);
    const list = await endpoints.listByForm({ orgId: form.orgId }, form.id);
    const dtos = await Promise.all(list.map(toDto));
    // The URL can be the endpoint's credential (Slack, Discord): in full only to those who manage endpoints.
    const manages = authorize(identityOf(req).roles, { form: ['update'] }).success;
    res.json({ data: manages ? dtos : dtos.map((d) => ({ ...d, url: redactWebhookUrl(d.url) })) });
  });

  mountRoute(router, API_ROUTES.createWebhook, async (req, res) => {
    const form = await manage(req);
    const body = API_ROUTES.createWebhook.request.body.parse(req.body ?? {});
    const endpoint = newEndpoint(deps, form, body);
    const created = await endpoints.create(endpoint, { limit: MAX_WEBHOOKS_PER_FORM });
    if (created === 'limit-reached') throw new AppError('NOTIFICATIONS_WEBHOOK_LIMIT_REACHED');
    res.status(201).json(await withSecret(endpoint));
  });

  mountRoute(router, API_ROUTES.updateWebhook, async (req, res) => {
    const form = await manage(req);
    const body = API_ROUTES.updateWebhook.request.body.parse(req.body ?? {});
    const current = await loadEndpoint(req, form);
    const updated = await endpoints.update({ orgId: form.orgId }, current.id, changesOf(deps, body, current), current);
    if (updated === 'conflict') throw new AppError('NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE');
    if (!updated) throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    res.json(await toDto(updated));
  });

  mountRoute(router, API_ROUTES.deleteWebhook, async (req, res) => {
    const form = await manage(req);
    const current = await loadEndpoint(req, form);
    if (!(await endpoints.remove({ orgId: form.orgId }, current.id))) {
      throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    }
    res.status(204).end();
  });

  mountRoute(router, API_ROUTES.rotateWebhookSecret, async (req, res) => {
    const form = await manage(req);
    const current = await loadEndpoint(req, form);
    const updated = await endpoints.update({ orgId: form.orgId }, current.id, rotation(deps, current), current);
    // Another rotation (or change) based on the same revision won: this new secret was never stored.
    if (updated === 'conflict') throw new AppError('NOTIFICATIONS_WEBHOOK_CONCURRENT_UPDATE');
    if (!updated) throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    res.json(await withSecret(updated));
  });

  return router;
}
