import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Plans whose default no benchmark reaches: nothing is held. */
export const BENCH_PLANS_FILE = join(REPO_ROOT, 'bench/lib/plans.json');

export interface ServerProcess {
  name: string;
  pid: number;
  port: number;
  url: string;
  logFile: string;
  /** Its `GET /metrics` (`METRICS_PORT`), when it was started with `metricsPort`. */
  metricsUrl?: string;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
  stop(): Promise<void>;
}

const running = new Map<number, ChildProcess>();

/** The preload that makes a server collect its garbage on SIGUSR2 (`collectGarbage`). */
const GC_ON_SIGNAL = join(REPO_ROOT, 'bench/lib/gc-on-signal.mjs');

/** Asks a server the bench started to run a full garbage collection (it does so at its next turn of the event loop). */
export function collectGarbage(pid: number): void {
  signal(pid, 'SIGUSR2');
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A port that was free a moment ago (the OS picks it; the child binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

function signal(pid: number, name: NodeJS.Signals) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    signal(pid, 'SIGTERM');
    if (!(await waitForExit(child, 10_000))) {
      signal(pid, 'SIGKILL');
      await waitForExit(child, 5_000);
    }
  }
  running.delete(pid);
}

/**
 * Starts `script` (TypeScript, relative to the repo root) as its own Node process (`node --import tsx`, so the
 * pid is the server itself), with stdout and stderr in `logDir/<name>.log`; resolves once `port` accepts TCP
 * (and `readyPath` answers 200, when given).
 */
export async function startServer(opts: {
  name: string;
  script: string;
  port: number;
  env: Record<string, string>;
  logDir: string;
  bootTimeoutMs?: number;
  /** Also wait until `GET readyPath` answers 200 (Formgate listens before it has booted, answering 503). */
  readyPath?: string;
  /** Serve the process's `/metrics` on this port (`METRICS_PORT`, a Formgate process's own listener). */
  metricsPort?: number;
}): Promise<ServerProcess> {
  const logFile = join(opts.logDir, `${opts.name}.log`);
  const fd = openSync(logFile, 'a');
  // `BENCH_CPU_PROF=<name>[,<name>]`: those servers write a V8 CPU profile to `BENCH_CPU_PROF_DIR` (default
  // bench/profiles) when they stop (bench/README.md, "Profiling a server").
  const profiled = (process.env.BENCH_CPU_PROF ?? '').split(',').includes(opts.name);
  const profDir = process.env.BENCH_CPU_PROF_DIR ?? join(REPO_ROOT, 'bench/profiles');
  // One directory per server: every thread writes its own profile (tsx's module loader runs in a worker thread).
  const profArgs = profiled ? ['--cpu-prof', `--cpu-prof-dir=${join(profDir, opts.name)}`] : [];
  // Every server runs a full garbage collection on SIGUSR2 (`gc-on-signal.mjs`): P11 reads RSS after one.
  const args = [...profArgs, '--import', 'tsx', '--import', GC_ON_SIGNAL, join(REPO_ROOT, opts.script)];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(opts.port),
      ...(opts.metricsPort === undefined ? {} : { METRICS_PORT: String(opts.metricsPort) }),
      ...opts.env,
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  if (child.pid === undefined) throw new Error(`${opts.name}: could not spawn ${opts.script}`);
  running.set(child.pid, child);
  const server: ServerProcess = {
    name: opts.name,
    pid: child.pid,
    port: opts.port,
    url: `http://127.0.0.1:${opts.port}`,
    logFile,
    ...(opts.metricsPort === undefined ? {} : { metricsUrl: `http://127.0.0.1:${opts.metricsPort}/metrics` }),
    stop: () => stopChild(child),
  };
  const deadline = Date.now() + (opts.bootTimeoutMs ?? 30_000);
  const ready = async () => {
    if (!(await canConnect(opts.port))) return false;
    if (!opts.readyPath) return true;
    return (await fetch(`${server.url}${opts.readyPath}`).catch(() => null))?.status === 200;
  };
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await server.stop();
      throw new Error(`${opts.name} did not start (exit ${child.exitCode}); log ${logFile}:\n${tail(logFile)}`);
    }
    await sleep(50);
  }
  return server;
}

/** Kills every server this bench started, by pid (used on the way out, also after a failure). */
export async function stopAllServers(): Promise<void> {
  await Promise.allSettled([...running.values()].map(stopChild));
}
