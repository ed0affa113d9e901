import { authorize, type DeliveryDto, type ReplayResultDto } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, type Ids, identityOf, type Logger, mountRoute, requirePermission } from '@formgate/kit';
import { type Request, Router } from 'express';
import type { Delivery, FormView } from '../store/index.ts';
import { channelOf } from './channel.ts';
import { type ResendDeps, resendDelivery } from './resend-delivery.ts';
import { DELIVERY_TUNING } from './tuning.ts';

export function toDeliveryDto(d: Delivery): DeliveryDto {
  const { orgId: _org, lastClaimed: _claimed, webhookEvent: _event, ...dto } = d;
  return dto;
}

/** `promise`'s value if it resolves within `ms`, else (or when it rejects) null. */
async function within<T>(promise: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([promise.catch(() => null), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export type DeliveriesRoutesDeps = ResendDeps & { ids: Ids; logger: Logger };

/**
 * The delivery log: `GET …/submissions/{id}/deliveries` for every member; resend and replay for owners and admins
 * (`form: update`). A form of another organization (or unknown) is `FORMS_FORM_NOT_FOUND`. Members who do not manage
 * the form read targets as their channel shows them (a webhook's URL can be its credential: redacted).
 */
export function deliveriesRoutes(deps: DeliveriesRoutesDeps) {
  const { stores, logger } = deps;
  const router = Router();
  /** Resend attempts still running after their request was answered; `drain` waits for them on shutdown. */
  const inFlight = new Set<Promise<void>>();

  const loadForm = async (req: Request): Promise<FormView> => {
    const form = await stores.views.getForm({ orgId: identityOf(req).orgId }, String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    return form;
  };

  const resend = async (original: Delivery, id: string) => {
    const { planned, attempted } = await resendDelivery(deps, original, id);
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
    const deliveries = await stores.log.listBySubmission(form, String(req.params.submissionId));
    const manages = authorize(identityOf(req).roles, { form: ['update'] }).success;
    const shown = (d: Delivery) =>
      manages ? toDeliveryDto(d) : { ...toDeliveryDto(d), target: channelOf(deps.channels, d).shownTarget(d) };
    res.json({ data: deliveries.filter((d) => d.formId === form.id).map(shown) });
  });

  mountRoute(router, API_ROUTES.resendDelivery, async (req, res) => {
    requirePermission(identityOf(req), { form: ['update'] });
    API_ROUTES.resendDelivery.request.body.parse(req.body ?? {});
    const form = await loadForm(req);
    const original = await stores.log.getDelivery(form, String(req.params.deliveryId));
    if (!original || original.formId !== form.id || original.submissionId !== String(req.params.submissionId)) {
      throw new AppError('NOTIFICATIONS_DELIVERY_NOT_FOUND');
    }
    const { planned, attempted } = await resend(original, deps.ids.next());
    const waited = await within(attempted, DELIVERY_TUNING.resendWaitMs);
    res.status(202).json(toDeliveryDto(waited ?? (await stores.log.getDelivery(form, planned.id)) ?? planned));
  });

  mountRoute(router, API_ROUTES.replayDeliveries, async (req, res) => {
    requirePermission(identityOf(req), { form: ['update'] });
    const form = await loadForm(req);
    const range = API_ROUTES.replayDeliveries.request.body.parse(req.body ?? {});
    const failed = await stores.log.listFailed(form, form.id, range, DELIVERY_TUNING.replayMax);
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
    const body: ReplayResultDto = { replayed, skipped, more: failed.length === DELIVERY_TUNING.replayMax };
    res.status(202).json(body);
  });

  return {
    router,
    drain: async () => {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },
  };
}
