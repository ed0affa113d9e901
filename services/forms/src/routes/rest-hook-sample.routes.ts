import { API_ROUTES } from '@formgate/contracts/routes';
import { identityOf, mountRoute } from '@formgate/kit';
import { Router } from 'express';
import { type SampleRestHooksDeps, sampleRestHooks } from '../use-cases/sample-rest-hooks.ts';

/**
 * `GET /api/v1/hooks/sample` (REST hooks, docs/integrations.md): answered here, where the submissions are; members
 * and read keys. Subscribing and unsubscribing are the notifications service's.
 */
export function restHookSampleRoutes(deps: SampleRestHooksDeps) {
  const router = Router();
  mountRoute(router, API_ROUTES.sampleRestHook, async (req, res) => {
    const query = API_ROUTES.sampleRestHook.request.query.parse(req.query);
    res.json(await sampleRestHooks(deps, { orgId: identityOf(req).orgId }, query));
  });
  return router;
}
