import type { IncomingMessage, ServerResponse } from 'node:http';
import { vi } from 'vitest';
import { startServer } from './render-app.tsx';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The request's query string, decoded. */
  query: URLSearchParams;
  body: unknown;
}

export type ApiHandler = (req: RecordedRequest) => { status?: number; body?: unknown } | undefined;

/**
 * A real local HTTP server answering both the better-auth client (pass `url` as `authBaseUrl`) and `apiFetch`'s
 * same-origin paths (`/api/v1/...`): `fetch` is wrapped to resolve relative paths against it, as a browser resolves
 * them against the page. Every request is recorded in order; `handle` answers (undefined → 404).
 */
export async function startApi(handle: ApiHandler) {
  const requests: RecordedRequest[] = [];
  const server = await startServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x.invalid');
      const recorded = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: raw ? JSON.parse(raw) : undefined,
      };
      requests.push(recorded);
      const answer = handle(recorded) ?? { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Not found' } } };
      const status = answer.status ?? 200;
      if (status === 204) res.writeHead(204).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body ?? null));
    });
  });
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) =>
    realFetch(typeof input === 'string' && input.startsWith('/') ? new URL(input, server.url) : input, init),
  );
  return {
    url: server.url,
    requests,
    close: async () => {
      vi.unstubAllGlobals();
      await server.close();
    },
  };
}
