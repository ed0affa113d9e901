import { AppError } from '@formgate/kit';
import { match } from 'path-to-regexp';

/** What the matcher needs of a route: the table's routes (`API_ROUTE_LIST` of `@formgate/contracts/routes`) fit. */
export interface MatchableRoute {
  method: string;
  path: string;
}

const decodeParam = (raw: string) => {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new AppError('MALFORMED_PATH');
  }
};

export interface RouteMatch<R extends MatchableRoute> {
  route: R;
  params: Record<string, string>;
}

/** A known path asked with a method it does not have: the methods it has, for `Allow` (GET brings HEAD). */
export interface MethodNotAllowed {
  allow: readonly string[];
}

/** Compiles the table once; `find` answers the route for a method and path, or why there is none. */
export function createRouter<R extends MatchableRoute>(routes: readonly R[]) {
  const compiled = routes.map((route) => ({
    route,
    test: match<Record<string, string>>(route.path, { decode: decodeParam }),
    params: (route.path.match(/:/g) ?? []).length,
  }));
  return {
    find(method: string, path: string): RouteMatch<R> | MethodNotAllowed | undefined {
      // `Allow` names the methods of the most specific paths that match: `/notification-emails/verify` is its own
      // path, not an `:emailId` of `/notification-emails/:emailId`.
      let fewest = Number.POSITIVE_INFINITY;
      let allow: string[] = [];
      for (const { route, test, params } of compiled) {
        const m = test(path);
        if (!m) continue;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
          return { route, params: m.params };
        if (params > fewest) continue;
        if (params < fewest) {
          fewest = params;
          allow = [];
        }
        allow.push(route.method);
        if (route.method === 'GET') allow.push('HEAD');
      }
      return allow.length > 0 ? { allow: [...new Set(allow)] } : undefined;
    },
  };
}

/** Public paths the gateway answers without any framework (the ingest fast path). */
export const isPublicIngestPath = (url: string) => url.startsWith('/f/') || url.startsWith('/form/');
