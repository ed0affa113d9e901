import type { IncomingMessage, ServerResponse } from 'node:http';

/** One part of a process that must be ready for it to take traffic: resolves when ready, rejects (or throws) when not. */
export type ReadinessCheck = () => Promise<void> | void;

export interface CheckResult {
  name: string;
  ok: boolean;
  /**
   * `failed` or `timed out after N ms`: never the error itself, since the gateway's `/readyz` is public and a
   * driver's message names hosts. The error goes to `onChange` (the process's log).
   */
  error?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: CheckResult[];
}

export interface Readiness {
  /** Adds a named check (`bus`, `mongo:forms`, `views`, ...). Checks run in parallel on each (uncached) probe. */
  register(name: string, check: ReadinessCheck): void;
  /** From now on the process is not ready, whatever the checks say (shutdown: traffic must go elsewhere first). */
  drain(): void;
  readonly draining: boolean;
  /**
   * Runs every check, each bounded by `timeoutMs`; a result younger than `cacheMs` is returned as it is, unless
   * `fresh` (a round started now; checks already running are still shared).
   */
  report(options?: { fresh?: boolean }): Promise<ReadinessReport>;
  /** `GET /readyz`: 200 `{ status: 'ready', checks }` or 503 `{ status: 'not-ready' | 'draining', checks }`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export interface ReadinessOptions {
  /** How long one check may take before it counts as failed (default 2 s, under a kubelet's 1 s..5 s probe). */
  timeoutMs?: number;
  /** How long a report is reused: a probe storm costs one round of checks per window (default 1 s). */
  cacheMs?: number;
  /** Called when a check starts failing (with its error) or passes again: log it there. */
  onChange?: (name: string, ok: boolean, err?: unknown) => void;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, 200);

class CheckTimeout extends Error {}

/**
 * A process's readiness, as a registry of named checks: each part registers what it needs (the bus answers, a
 * database answers, views replayed). Cheap by design: checks are bounded by a timeout, run in parallel, and one
 * report is shared by every probe within `cacheMs` (concurrent probes share the round in flight), and a check
 * still running past its timeout is awaited again rather than called again, so a probe storm cannot hammer MongoDB or
 * Kafka, even while they hang. Liveness (`/healthz`) stays separate and does no I/O.
 */
export function createReadiness(opts: ReadinessOptions = {}): Readiness {
  const timeoutMs = opts.timeoutMs ?? 2_000;
  const cacheMs = opts.cacheMs ?? 1_000;
  const checks = new Map<string, ReadinessCheck>();
  /** A check still running (past its timeout, say a database that does not answer) is awaited, not called again. */
  const running = new Map<string, Promise<void>>();
  const failing = new Set<string>();
  const changed = (name: string, ok: boolean, err?: unknown) => {
    if (ok === !failing.has(name)) return;
    if (ok) failing.delete(name);
    else failing.add(name);
    opts.onChange?.(name, ok, err);
  };
  let draining = false;
  let cached: { at: number; report: Promise<ReadinessReport> } | undefined;

  const run = async (name: string, check: ReadinessCheck): Promise<CheckResult> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new CheckTimeout(`timed out after ${timeoutMs} ms`)), timeoutMs);
    });
    let call = running.get(name);
    if (!call) {
      call = Promise.resolve().then(check);
      running.set(name, call);
      const done = () => running.delete(name);
      call.then(done, done);
    }
    try {
      await Promise.race([call, timeout]);
      changed(name, true);
      return { name, ok: true };
    } catch (err) {
      changed(name, false, err);
      return { name, ok: false, error: err instanceof CheckTimeout ? err.message : 'failed' };
    } finally {
      clearTimeout(timer);
    }
  };

  const report = (fresh = false): Promise<ReadinessReport> => {
    const now = Date.now();
    if (!fresh && cached && now - cached.at < cacheMs) return cached.report;
    const round = Promise.all([...checks].map(([name, check]) => run(name, check))).then((results) => ({
      ready: results.every((r) => r.ok),
      checks: results,
    }));
    cached = { at: now, report: round };
    return round;
  };

  return {
    register(name, check) {
      if (checks.has(name)) throw new Error(`readiness check "${name}" is registered twice`);
      checks.set(name, check);
      cached = undefined;
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
    report: async (options) => {
      const r = await report(options?.fresh);
      return draining ? { ready: false, checks: r.checks } : r;
    },
    handle(_req, res) {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
      };
      if (draining) return void send(503, { status: 'draining', checks: [] });
      report().then(
        (r) => send(r.ready ? 200 : 503, { status: r.ready ? 'ready' : 'not-ready', checks: r.checks }),
        (err: unknown) =>
          send(503, { status: 'not-ready', checks: [{ name: 'readiness', ok: false, error: message(err) }] }),
      );
    },
  };
}

/** A check that passes once `started()` was called (e.g. after `Service.start()` resolved: its views replayed). */
export function startedCheck(what = 'not started yet'): { check: ReadinessCheck; started(): void } {
  let started = false;
  return {
    check: () => {
      if (!started) throw new Error(what);
    },
    started: () => {
      started = true;
    },
  };
}
