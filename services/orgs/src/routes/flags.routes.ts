import { FEATURE_FLAGS, type FeatureFlag, type FlagDto } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { AppError, identityOf, mountRoute } from '@formgate/kit';
import { Router } from 'express';
import type { OrgsStore } from '../store/orgs-store.ts';

const isFeatureFlag = (name: string): name is FeatureFlag => Object.hasOwn(FEATURE_FLAGS, name);

/** `/api/v1/flags`: whether a feature is on for the caller's organization. Any member may ask. */
export function flagsRoutes(deps: { orgs: OrgsStore }) {
  const router = Router();
  mountRoute(router, API_ROUTES.getFlag, async (req, res) => {
    const flag = String(req.params.flag);
    if (!isFeatureFlag(flag)) throw new AppError('FLAG_NOT_FOUND');
    const settings = await deps.orgs.getSettings({ orgId: identityOf(req).orgId });
    // A flag is off unless the organization turned it on, including before its creation reached this service.
    const body: FlagDto = { flag, enabled: settings?.[FEATURE_FLAGS[flag]] === true };
    res.json(body);
  });
  return router;
}
