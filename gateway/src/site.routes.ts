import type { SiteConfig } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import { mountRoute } from '@formgate/kit';
import { Router } from 'express';

/** `GET /api/v1/site`: the instance's public configuration (plans, its own forms), for the public pages. */
export function siteRoutes(site: () => SiteConfig) {
  const router = Router();
  mountRoute(router, API_ROUTES.getSite, (_req, res) => {
    res.set('cache-control', 'public, max-age=60').json(site());
  });
  return router;
}
