import { authorize, type DeliveryDto, type ReplayResultDto } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, type Clock, type Ids, identityOf, type Logger, mountRoute, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { WebhookEndpointStore } from '../endpoints/webhook-endpoint-store.ts';
import { redactWebhookUrl } from '../endpoints/webhook-url.ts';
import type { DeliveryRunner } from './delivery-runner.ts';
import type { Delivery, DeliveryStore, FormView } from './delivery-store.ts';
import { newDelivery } from './plan-deliveries.ts';
import type { Recipients } from './ports.ts';

export function toDeliveryDto(d: Delivery): DeliveryDto {
  const { orgId: _org, lastClaimed: _claimed, webhookEvent: _event, ...dto } = d;
  return dto;
}

/** How long a resend's request waits for its first attempt before answering with the delivery as it stands. */
const RESEND_WAIT_MS = 3_000;
/** Failed deliveries one replay request re-attempts at most (`more: true` says there are others in the range). */
const REPLAY_MAX = 500;
export interface DeliveriesRoutesDeps {
  store: DeliveryStore;
  runner: DeliveryRunner;
  recipients: Recipients;
  endpoints: WebhookEndpointStore;
  clock: Clock;
  ids: Ids;
  logger: Logger;
}

/**
 * The delivery log: `GET …/submissions/{id}/deliveries` for every member; resend and replay for owners and admins
 * (`form: update`). A form of another organization (or unknown) is `FORMS_FORM_NOT_FOUND`. A webhook's URL can be
 * its credential (Slack, Discord): members who do not manage endpoints read it redacted (`redactWebhookUrl`).
 */
export function deliveriesRoutes(deps: DeliveriesRoutesDeps) {
  const { store, runner, logger } = deps;
  const router = Router();
  /** Resend attempts still running after their request was answered; `drain` waits for them on shutdown. */
  const inFlight = new Set<Promise<void>>();

  const loadForm = async (req: Request): Promise<FormView> => {
    const form = await store.getForm(String(req.params.formId));
    if (!form || form === 'deleted' || form.orgId !== identityOf(req).orgId) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };

  /**
   * What a resend of a webhook delivery sends: the same event, to the endpoint as it is now (its URL may have been
   * corrected since), which must still exist and be enabled.
   */
  const webhookTarget = async (original: Delivery) => {
    const endpoint = original.targetId ? await deps.endpoints.get({ orgId: original.orgId }, original.targetId) : null;
    if (!endpoint) throw new AppError('NOTIFICATIONS_WEBHOOK_NOT_FOUND');
    if (!endpoint.enabled) throw new AppError('NOTIFICATIONS_WEBHOOK_DISABLED');
    return { purpose: endpoint.kind, target: endpoint.url, targetId: endpoint.id, webhookEvent: original.webhookEvent };
  };

  /** Plans a new delivery repeating `original` (same channel, purpose and target) and starts its first attempt. */
  const resend = async (original: Delivery, id: string) => {
    const needsCopy = original.webhookEvent?.type !== 'submission.deleted';
    if (needsCopy && !(await store.getSubmission(original.submissionId))) {
      throw new AppError('NOTIFICATIONS_SUBMISSION_GONE');
    }
    if (original.channel === 'email' && original.purpose === 'notification') {
      const verified = (await deps.recipients.listVerified(original.orgId)).map((a) => a.trim().toLowerCase());
      if (!verified.includes(original.target)) throw new AppError('NOTIFICATIONS_RECIPIENT_NOT_VERIFIED');
    }
    const { orgId, formId, submissionId, channel, purpose, target } = original;
    const webhook = channel === 'webhook' ? await webhookTarget(original) : {};
    const [planned] = await store.planDeliveries([
      {
        ...newDelivery(deps, { id, orgId, formId, submissionId, channel, purpose, target, resendOf: original.id }),
        ...webhook,
      },
    ]);
    if (!planned) throw new Error('planDeliveries returned nothing');
    const attempted =
      planned.lastClaimed > 0
        ? Promise.resolve(planned)
        : runner.attempt(planned).then(async (after) => {
            // A bus outage here leaves the outcome marked unpublished: the retry worker publishes it.
            if (after) await runner.publishOutcomes([after]).catch((err) => logger.warn({ err }, 'publishing later'));
            return after;
          });
    const settled = attempted.then(
      () => {},
      (err: unknown) => logger.warn({ err, deliveryId: id }, 'resend attempt failed; the worker retries'),
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
    return { planned, attempted };
  };

  mountRoute(router, API_ROUTES.listDeliveries, async (req, res) => {
    const form = await loadForm(req);
    const deliveries = await store.listBySubmission(String(req.params.submissionId));
    const manages = authorize(identityOf(req).roles, { form: ['update'] }).success;
    const shown = (d: Delivery) =>
      manages || d.channel !== 'webhook'
        ? toDeliveryDto(d)
        : { ...toDeliveryDto(d), target: redactWebhookUrl(d.target) };
    res.json({ data: deliveries.filter((d) => d.formId === form.id && d.orgId === form.orgId).map(shown) });
  });

  mountRoute(router, API_ROUTES.resendDelivery, async (req, res) => {
    requirePermission(identityOf(req), { form: ['update'] });
    API_ROUTES.resendDelivery.request.body.parse(req.body ?? {});
    const form = await loadForm(req);
    const original = await store.getDelivery(String(req.params.deliveryId));
    if (!original || original.formId !== form.id || original.submissionId !== String(req.params.submissionId)) {
      throw new AppError('NOTIFICATIONS_DELIVERY_NOT_FOUND');
    }
    const { planned, attempted } = await resend(original, deps.ids.next());
    let timer: NodeJS.Timeout | undefined;
    const waited = await Promise.race([
      attempted.catch(() => null),
      new Promise<null>((r) => {
        timer = setTimeout(() => r(null), RESEND_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    res.status(202).json(toDeliveryDto(waited ?? (await store.getDelivery(planned.id)) ?? planned));
  });

  mountRoute(router, API_ROUTES.replayDeliveries, async (req, res) => {
    requirePermission(identityOf(req), { form: ['update'] });
    const form = await loadForm(req);
    const range = API_ROUTES.replayDeliveries.request.body.parse(req.body ?? {});
    const failed = await store.listFailed(form.id, range, REPLAY_MAX);
    let replayed = 0;
    let skipped = 0;
    for (const original of failed) {
      try {
        // One replay per failed delivery: replaying the same range again re-plans the same ids, sending nothing new.
        const { planned } = await resend(original, deps.ids.derived('replay', original.id));
        if (planned.lastClaimed === 0) replayed++;
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        skipped++;
      }
    }
    const body: ReplayResultDto = { replayed, skipped, more: failed.length === REPLAY_MAX };
    res.status(202).json(body);
  });

  return {
    router,
    drain: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
