import type { RouteAccess } from '@formgate/contracts/routes';
import type { RequestHandler, Router } from 'express';

type Method = 'get' | 'post' | 'patch' | 'delete';

/**
 * Mounts `handlers` at a route's own method and path, as the route table (`API_ROUTES` of
 * `@formgate/contracts/routes`) defines them: `router` must be mounted at the root. A route's path is written once.
 */
export function mountRoute(
  router: Pick<Router, Method>,
  route: Pick<RouteAccess, 'method' | 'path'>,
  ...handlers: RequestHandler[]
) {
  router[route.method.toLowerCase() as Method](route.path, ...handlers);
}
