import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { createRouter } from '@formgate/gateway';

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
export const MAX_BODY_CHARS = 256 * 1024;
/** Distinct body shapes kept per route and status. */
const MAX_SHAPES = 4;
/** Bodies read per route and status in one process (the reliability tier sends thousands of the same answer). */
const MAX_READS = 100;
/** Paths that may be API routes: only their answers are cloned. */
const API_PATH = /^\/(?:api\/v1\/|f\/)/;

let router: Promise<ReturnType<typeof createRouter>> | undefined;
/**
 * The gateway's router over the route table and the public endpoint's routes, loaded on the first API call: installed in every
 * int file, the recorder costs nothing to the many that never call the API (the gateway's import is heavy).
 */
const loadRouter = () =>
  (router ??= Promise.all([import('@formgate/contracts/routes'), import('@formgate/gateway')]).then(
    ([{ API_ROUTE_LIST, PUBLIC_ROUTE_LIST }, { createRouter }]) =>
      createRouter([...API_ROUTE_LIST, ...PUBLIC_ROUTE_LIST]),
  ));

/** The route of an API call, or undefined for anything else (pages, better-auth, the operator API). */
export async function routeOf(method: string, path: string): Promise<string | undefined> {
  if (method === 'HEAD' || method === 'OPTIONS' || !API_PATH.test(path)) return undefined;
  const table = await loadRouter();
  try {
    const found = table.find(method, path);
    if (found && 'route' in found) return found.route.path;
    // A method the path does not have: recorded under the path's pattern (its operations document the 405).
    for (const other of found?.allow ?? []) {
      const route = table.find(other, path);
      if (route && 'route' in route) return route.route.path;
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

/** Where the int, e2e, browser and reliability tiers record (`tests/harness/api-recording.setup.ts`) and the check reads. */
export const API_SAMPLES_DIR = resolve(import.meta.dirname, '../../.run/api-samples');

/** Written by the tiers' global setup when a run records: the check then insists on samples. */
export const RECORDING_MARKER = 'recording.json';

/**
 * Marks an answer a test's stand-in made up (a fake upstream behind the real proxy): not Formgate's, not recorded.
 * Package tests cannot import this file; they spell the header out.
 */
export const STAND_IN_HEADER = 'x-test-stand-in';

/**
 * One answer seen by any client (Node's `fetch`, Chromium, the load generator's `node:http`): what a sample is made
 * of. `text` reads the body (null when it is longer than `MAX_BODY_CHARS` or cannot be read); `discard` lets go of
 * a body that will not be read.
 */
export interface SeenAnswer {
  method: string;
  path: string;
  status: number;
  contentType: string | null;
  text(): Promise<string | null>;
  discard?(): void;
}

/** A `fetch` that records, what it recorded, and how to wait for the samples still being read. */
export interface ApiRecorder {
  fetch: typeof fetch;
  /** Records an answer another client saw. */
  record(answer: SeenAnswer): void;
  samples: ApiSample[];
  /** Waits until every answer received so far is recorded. */
  flush(): Promise<void>;
}

/** A body as text, or null past `MAX_BODY_CHARS` (read no further, so a long export costs nothing more). */
async function readCapped(res: Response): Promise<string | null> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (text.length > MAX_BODY_CHARS) {
      await reader.cancel();
      return null;
    }
  }
}

/**
 * Wraps `original`: every API answer it returns, and every one given to `record`, is recorded (in `samples`, and
 * appended to `file` when given), deduplicated by route, status and body shape, at most `MAX_SHAPES` per route and
 * status; past `MAX_READS` answers of one route and status the bodies are no longer read, so a load of thousands
 * costs a route lookup each. The caller gets the original response untouched: the recorder reads a clone (a tee of
 * the body), so streams and `bodyUsed` behave as without it, and a body the caller never reads is still recorded.
 */
export function createApiRecorder(original: typeof fetch, file?: string): ApiRecorder {
  const pending = new Set<Promise<void>>();
  const seen = new Map<string, { shapes: Set<string>; reads: number }>();
  const samples: ApiSample[] = [];
  const record = (answer: SeenAnswer) => {
    const { method, status, contentType } = answer;
    const done = (async () => {
      const route = await routeOf(method, answer.path);
      const key = `${method} ${route} ${status}`;
      const entry = seen.get(key) ?? { shapes: new Set<string>(), reads: 0 };
      if (!route || entry.shapes.size >= MAX_SHAPES || entry.reads >= MAX_READS) return answer.discard?.();
      seen.set(key, entry);
      entry.reads++;
      const text = await answer.text();
      let body: unknown = text;
      if (text && contentType?.startsWith('application/json')) {
        try {
          body = JSON.parse(text);
        } catch {
          // Kept as text: a JSON answer that does not parse fails the check against its object schema.
        }
      }
      const shape = `${contentType} ${shapeOf(body)}`;
      if (entry.shapes.has(shape) || entry.shapes.size >= MAX_SHAPES) return;
      entry.shapes.add(shape);
      const sample: ApiSample = { method, route, status, contentType, body };
      samples.push(sample);
      if (file) appendFileSync(file, `${JSON.stringify(sample)}\n`);
    })().catch(() => {
      // A body cut short (a connection reset mid-body) is not an answer to check.
    });
    pending.add(done);
    void done.finally(() => pending.delete(done));
  };
  const recording: typeof fetch = async (input, init) => {
    const res = await original(input, init);
    const request = input instanceof Request ? input : undefined;
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const path = new URL(request ? request.url : String(input)).pathname;
    if (API_PATH.test(path) && !res.headers.has(STAND_IN_HEADER)) {
      const contentType = res.headers.get('content-type');
      // A stream that stays open (`text/event-stream`) is recorded unread: a clone would hold its connection open.
      if (contentType?.startsWith('text/event-stream')) {
        record({ method, path, status: res.status, contentType, text: async () => '' });
        return res;
      }
      const copy = res.clone();
      record({
        method,
        path,
        status: res.status,
        contentType: copy.headers.get('content-type'),
        text: () => readCapped(copy),
        // Not awaited: a tee's branch cancels only once the caller's branch is read or cancelled too.
        discard: () => void copy.body?.cancel().catch(() => {}),
      });
    }
    return res;
  };
  return {
    fetch: recording,
    record,
    samples,
    flush: async () => {
      while (pending.size) await Promise.all(pending);
    },
  };
}

// On globalThis, not in this module: a second copy of the module must not wrap `fetch` twice.
const STATE = Symbol.for('formgate.apiRecorder');
const holder = globalThis as { [STATE]?: ApiRecorder };

/**
 * Replaces the global `fetch` with a recording one appending to `<dir>/api-samples-<pid>.ndjson`. The int, e2e,
 * browser and reliability tiers install it for every file (`api-recording.setup.ts`, into `API_SAMPLES_DIR`) and
 * the `api-conformance` project checks what they saw against the OpenAPI description; elsewhere it is opt-in
 * (`FORMGATE_API_RECORD=<dir>`).
 * A test that stubs `fetch` afterwards replaces it as it would the original.
 */
export function installApiRecorder(dir = process.env.FORMGATE_API_RECORD): void {
  if (!dir || holder[STATE]) return;
  mkdirSync(dir, { recursive: true });
  const recorder = createApiRecorder(globalThis.fetch, join(dir, `api-samples-${process.pid}.ndjson`));
  holder[STATE] = recorder;
  globalThis.fetch = recorder.fetch;
}

/**
 * Records an answer a client other than `fetch` saw (Chromium, `node:http`) when this process records; otherwise
 * lets go of it.
 */
export function recordApiAnswer(answer: SeenAnswer): void {
  const recorder = holder[STATE];
  if (recorder) recorder.record(answer);
  else answer.discard?.();
}

/** The samples this process recorded so far (after `flushApiRecorder`: all of them). */
export function recordedApiSamples(): readonly ApiSample[] {
  return holder[STATE]?.samples ?? [];
}

/** Waits until every answer received so far is written. */
export async function flushApiRecorder(): Promise<void> {
  await holder[STATE]?.flush();
}

/** Every sample recorded in `dir`, by any process. */
export function readApiSamples(dir: string): ApiSample[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith('api-samples-') && f.endsWith('.ndjson'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ApiSample),
    );
}
