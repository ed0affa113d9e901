import type { SiteConfig } from '@formgate/contracts';
import { Router } from 'express';

/** `GET /api/v1/site`: the instance's public configuration (plans, its own forms), for the public pages. */
export function siteRoutes(site: () => SiteConfig) {
  const router = Router();
  router.get('/api/v1/site', (_req, res) => {
    res.set('cache-control', 'public, max-age=60').json(site());
  });
  return router;
}
