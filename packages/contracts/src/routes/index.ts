import type { RouteDefinition } from './define-route.ts';
import { eventRoutes } from './event-routes.ts';
import { formRoutes } from './form-routes.ts';
import { hookRoutes } from './hook-routes.ts';
import { deliveryRoutes, notificationEmailRoutes } from './notification-routes.ts';
import { organizationRoutes } from './organization-routes.ts';
import { privacyRoutes } from './privacy-routes.ts';
import { publicRoutes } from './public-routes.ts';
import { siteRoutes } from './site-routes.ts';

export * from './define-route.ts';
export { INGEST_ERROR_CODES } from './public-routes.ts';

/**
 * Every route of the API (`/api/v1`), keyed by its operation id: the gateway's routing and access rules, the schemas
 * services validate requests with, the OpenAPI description and the client's types all come from here. The gateway
 * tries the routes in this order (`/submissions/export` before `/submissions/:submissionId`).
 */
export const API_ROUTES = {
  ...siteRoutes,
  ...formRoutes,
  ...privacyRoutes,
  ...deliveryRoutes,
  ...organizationRoutes,
  ...notificationEmailRoutes,
  ...eventRoutes,
  ...hookRoutes,
};

/** The public endpoint's routes (`/f/:formKey…`), answered by ingest. */
export const PUBLIC_ROUTES = publicRoutes;

export type OperationId = keyof typeof API_ROUTES;

/** A route of the table with its operation id (its key). */
export type ApiRoute = RouteDefinition & { operationId: string };

const listOf = (routes: Record<string, RouteDefinition>): readonly ApiRoute[] =>
  Object.entries(routes).map(([operationId, route]) => ({ operationId, ...route }));

export const API_ROUTE_LIST = listOf(API_ROUTES);
export const PUBLIC_ROUTE_LIST = listOf(PUBLIC_ROUTES);
