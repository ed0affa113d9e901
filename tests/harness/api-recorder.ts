import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PUBLIC_OPERATIONS } from '@formgate/contracts/openapi';
import { createRouter, ROUTES, type RouteSpec } from '@formgate/gateway';

/** One answer of the API as a test saw it. `body` is parsed JSON, text, or null when not kept (too long, binary). */
export interface ApiSample {
  method: string;
  /** The route's pattern (`/api/v1/forms/:formId`), never the ids. */
  route: string;
  status: number;
  contentType: string | null;
  body: unknown;
}

/** Longest body kept; longer ones are recorded without it (their status and type are still checked). */
const MAX_BODY_CHARS = 256 * 1024;
/** Distinct body shapes kept per route and status. */
const MAX_SHAPES = 4;

const router = createRouter([
  ...ROUTES,
  ...PUBLIC_OPERATIONS.map((o): RouteSpec => ({ method: o.method, path: o.path, service: 'ingest', auth: 'public' })),
]);

/** The route of an API call, or undefined for anything else (pages, better-auth, the operator API). */
export function routeOf(method: string, path: string): string | undefined {
  if (method === 'HEAD' || method === 'OPTIONS') return undefined;
  try {
    const found = router.find(method, path);
    if (found && found !== 'method-not-allowed') return found.route.path;
    // A method the path does not have: recorded under the path's pattern (its operations document the 405).
    if (found === 'method-not-allowed') {
      for (const other of ['GET', 'POST', 'PATCH', 'DELETE']) {
        const route = router.find(other, path);
        if (route && route !== 'method-not-allowed') return route.route.path;
      }
    }
  } catch {}
  return undefined;
}

/** A body's structure without its values: keys and types, arrays by their first item. */
function shapeOf(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length ? shapeOf(value[0]) : ''}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${k}:${shapeOf((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return value === null ? 'null' : typeof value;
}

let installed: { dir: string; pending: Set<Promise<void>>; seen: Map<string, Set<string>> } | undefined;

/**
 * Opt-in (`FORMGATE_API_RECORD=<dir>`): every API answer a test's `fetch` receives is appended to
 * `<dir>/api-samples-<pid>.ndjson`, deduplicated by route, status and body shape, at most `MAX_SHAPES` per route and
 * status. The conformance test validates them against `/api/v1/openapi.json`; any suite can record into the same dir.
 */
export function installApiRecorder(dir = process.env.FORMGATE_API_RECORD): void {
  if (!dir || installed) return;
  mkdirSync(dir, { recursive: true });
  const state = { dir, pending: new Set<Promise<void>>(), seen: new Map<string, Set<string>>() };
  installed = state;
  const file = join(dir, `api-samples-${process.pid}.ndjson`);
  const original = globalThis.fetch;
  globalThis.fetch = async (input, init) => {
    const res = await original(input, init);
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const url = new URL(request ? request.url : String(input));
    const route = routeOf(method, url.pathname);
    if (!route) return res;
    const copy = res.clone();
    const done = (async () => {
      const contentType = copy.headers.get('content-type');
      const text = await copy.text();
      let body: unknown = text.length > MAX_BODY_CHARS ? null : text;
      if (body !== null && contentType?.startsWith('application/json') && text) body = JSON.parse(text);
      const key = `${method} ${route} ${res.status}`;
      const shapes = state.seen.get(key) ?? new Set<string>();
      const shape = `${contentType} ${shapeOf(body)}`;
      if (shapes.has(shape) || shapes.size >= MAX_SHAPES) return;
      shapes.add(shape);
      state.seen.set(key, shapes);
      const sample: ApiSample = { method, route, status: res.status, contentType, body };
      appendFileSync(file, `${JSON.stringify(sample)}\n`);
    })().catch(() => {});
    state.pending.add(done);
    void done.finally(() => state.pending.delete(done));
    return res;
  };
}

/** Waits until every answer received so far is written. */
export async function flushApiRecorder(): Promise<void> {
  while (installed?.pending.size) await Promise.all(installed.pending);
}

/** Every sample recorded in `dir`, by any process. */
export function readApiSamples(dir: string): ApiSample[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith('api-samples-') && f.endsWith('.ndjson'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ApiSample),
    );
}
