import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, mountRoute, requirePermission } from '@formgate/kit';
import { Router } from 'express';
import type { FormRepository } from '../store/form-repository.ts';
import { checkRetentionDays, formRetention, type RetentionDeps, retentionPolicy } from '../use-cases/retention.ts';

/**
 * `/api/v1/retention`: the organization's default retention (any member reads it; owners and admins change it),
 * and `/api/v1/forms/{formId}/retention`: the retention in force for a form (issue 31).
 */
export function retentionRoutes(
  deps: Pick<RetentionDeps, 'retention' | 'retentionLimit'> & {
    forms: FormRepository;
    /** A sweep now: a shorter retention takes effect without waiting for the next interval. */
    onRetentionChanged: () => void;
  },
) {
  const router = Router();
  mountRoute(router, API_ROUTES.getRetention, async (req, res) => {
    res.json(await retentionPolicy(deps, { orgId: identityOf(req).orgId }));
  });
  mountRoute(router, API_ROUTES.updateRetention, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, { organization: ['update'] });
    const { days } = API_ROUTES.updateRetention.request.body.parse(req.body);
    checkRetentionDays(days, deps.retentionLimit(identity.orgId), 'days');
    await deps.retention.setOrgDays({ orgId: identity.orgId }, days);
    deps.onRetentionChanged();
    res.json(await retentionPolicy(deps, { orgId: identity.orgId }));
  });
  mountRoute(router, API_ROUTES.getFormRetention, async (req, res) => {
    const scope = { orgId: identityOf(req).orgId };
    const form = await deps.forms.getForm(scope, String(req.params.formId));
    if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
    res.json(await formRetention(deps, scope, form));
  });
  return router;
}
