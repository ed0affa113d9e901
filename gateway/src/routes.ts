/** Which service serves a path prefix, and how callers must authenticate. The gateway has no other routing. */
export interface RouteSpec {
  prefix: string;
  service: ServiceName;
  /** `public`: no identity is attached (and a client's is stripped); `identity`: 401 unless authenticated. */
  auth: 'public' | 'identity';
}

export type ServiceName = 'forms' | 'ingest' | 'billing' | 'notifications' | 'orgs';

export const ROUTES: readonly RouteSpec[] = [
  { prefix: '/f/', service: 'ingest', auth: 'public' },
  { prefix: '/form/', service: 'ingest', auth: 'public' },
  { prefix: '/api/v1/forms', service: 'forms', auth: 'identity' },
  { prefix: '/api/v1/billing', service: 'billing', auth: 'identity' },
];

export function matchRoute(routes: readonly RouteSpec[], path: string): RouteSpec | undefined {
  return routes.find((r) => path === r.prefix || path.startsWith(r.prefix.endsWith('/') ? r.prefix : `${r.prefix}/`));
}

/** Public paths the gateway answers without any framework (the ingest fast path). */
export const isPublicIngestPath = (url: string) => url.startsWith('/f/') || url.startsWith('/form/');
