import { MAX_WEBHOOKS_PER_FORM, type RestHookDto, type SubscribeRestHookRequest } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, mountRoute, requirePermission } from '@formgate/kit';
import { Router } from 'express';
import type { WebhookEndpoint } from '../store/index.ts';
import { newEndpoint, type WebhooksRoutesDeps } from './webhooks.routes.ts';

const toDto = (e: WebhookEndpoint): RestHookDto => ({
  id: e.id,
  targetUrl: e.url,
  event: e.events[0] ?? 'submission.created',
  formId: e.formId,
  createdAt: e.createdAt,
  secret: e.secret,
});

/**
 * `/api/v1/hooks` (docs/integrations.md): a platform subscribes when a trigger is switched on and unsubscribes when
 * it is switched off; owners, admins and write keys (`form: update`, as for the webhooks API). A hook is a webhook
 * endpoint of the form (listed, logged and limited with the others); the sample is the forms service's.
 */
export function restHooksRoutes(deps: WebhooksRoutesDeps) {
  const { stores, endpoints } = deps;
  const router = Router();

  mountRoute(router, API_ROUTES.subscribeRestHook, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { form: ['update'] });
    const body = API_ROUTES.subscribeRestHook.request.body.parse(req.body ?? {});
    const form = await stores.views.getForm({ orgId: identity.orgId }, body.formId);
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    const hook = newEndpoint(deps, form, { url: body.targetUrl, kind: 'rest-hook', events: [body.event] });
    if ((await endpoints.create(hook, { limit: MAX_WEBHOOKS_PER_FORM })) === 'limit-reached') {
      throw new AppError('NOTIFICATIONS_WEBHOOK_LIMIT_REACHED');
    }
    res.status(201).json(toDto(hook));
  });

  // Only a `rest-hook` endpoint is a hook: the form's other endpoints are managed under `/forms/{id}/webhooks`.
  mountRoute(router, API_ROUTES.unsubscribeRestHook, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { form: ['update'] });
    const scope = { orgId: identity.orgId };
    const hook = await endpoints.get(scope, String(req.params.hookId));
    if (hook?.kind !== 'rest-hook' || !(await endpoints.remove(scope, hook.id))) {
      throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    }
    res.status(204).end();
  });

  return router;
}
