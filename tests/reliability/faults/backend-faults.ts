import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { canListen } from '@formgate/kit/testing';
import { connectMongo, probeStorage } from '@formgate/store/mongo';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../../..');
const LOCAL = resolve(ROOT, 'infra/local');
/** Run dirs of the scenario-owned servers, apart from the shared e2e ones (`.run/test`). */
const RUN_BASE = resolve(ROOT, '.run/reliability');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type BackendKind = 'kafka' | 'ferretdb';

export interface OwnBackend {
  kind: BackendKind;
  port: number;
  /** `KAFKA_BROKERS` / `MONGO_URL` value. */
  url: string;
  /** `kill -9` the server process named by its pid file, and wait until it is gone. */
  kill9(): Promise<void>;
  /** `infra/local/<kind>.sh start` on the same port and run dir (its data kept). */
  start(): Promise<void>;
  /** Graceful stop. */
  stop(): Promise<void>;
  /** Whether the server process named by its pid file is alive. */
  running(): boolean;
  /**
   * FerretDB only: `kill -9` of its PostgreSQL postmaster (FerretDB stays up and answers every command with an
   * error), and wait until it and its server processes are gone.
   */
  killStorage(): Promise<void>;
  /** FerretDB only: PostgreSQL started again under the running FerretDB; returns once FerretDB can write again. */
  startStorage(): Promise<void>;
  /** FerretDB only: whether its PostgreSQL postmaster is alive. */
  storageRunning(): boolean;
}

/** Until a write through `url` reaches the storage (FerretDB's pool reconnects to a restarted PostgreSQL lazily). */
async function untilWritable(url: string, ms = 60_000) {
  const conn = await connectMongo(url, 'fg_reliability_probe');
  try {
    for (const deadline = Date.now() + ms; ; await sleep(200)) {
      const err = await probeStorage(conn.db as NonNullable<typeof conn.db>, 'backend-faults').catch((e) => e);
      if (err === undefined) return;
      if (Date.now() > deadline) throw new Error(`${url} cannot write ${ms} ms after its storage started: ${err}`);
    }
  } finally {
    await conn.close();
  }
}

const alive = (pid: number) => {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
};

/** The live processes whose parent is `parent` (from `/proc`): the server processes of a postmaster. */
const childrenOf = (parent: number) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]) === parent;
      } catch {
        return false;
      }
    })
    .map(Number);

/** Waits until no pid of `pids` is `present` (default: alive), or throws after `ms` naming them as `what`. */
async function untilGone(pids: number[], what: string, ms: number, present = alive) {
  for (const deadline = Date.now() + ms; pids.some(present); await sleep(50)) {
    if (Date.now() > deadline)
      throw new Error(`${what} (${pids.filter(present).join(',')}) still there after ${ms} ms`);
  }
}

/**
 * A pid that `/proc` still lists, a zombie included: PostgreSQL refuses to start while the pid in its
 * `postmaster.pid` answers `kill(pid, 0)`, which a killed postmaster's zombie does until init reaps it.
 */
const listed = (pid: number) => existsSync(`/proc/${pid}`);

/**
 * The first `port`, `port`+1 pair at or after `preferred` (by steps of 2, within ten ports) where both are free: a server
 * some other run left on the preferred ports (another checkout's, under another run dir that `stop` cannot reach)
 * must not fail this file's setup.
 */
async function freePortPair(preferred: number) {
  const last = preferred + 8; // each server keeps to its ten ports (Kafka 29520–29529, FerretDB 29530–29539)
  for (let port = preferred; port <= last; port += 2) {
    if ((await canListen(port)) && (await canListen(port + 1))) return port;
  }
  throw new Error(`no two free ports from ${preferred} to ${last + 1} for a scenario-owned server`);
}

/**
 * Starts a Kafka broker or FerretDB of the scenario's own on `preferredPort`, or the next free pair after it (Kafka
 * takes port+1 for its controller, FerretDB for its PostgreSQL), through
 * `infra/local`, in a fresh run dir under `.run/reliability`, so killing it never touches the servers other test
 * files share. "Kill the database" kills the Mongo-wire server process (FerretDB) by its pid file, whatever its
 * storage backend; "kill the storage" kills FerretDB's PostgreSQL under it (`killStorage`).
 */
export async function startOwnBackend(kind: BackendKind, preferredPort: number): Promise<OwnBackend> {
  const backend = await prepareOwnBackend(kind, preferredPort);
  await backend.start();
  return backend;
}

/**
 * `startOwnBackend` without the start: the ports are chosen and `url` is known, nothing listens on them until
 * `start()` (a deployment started before its backends).
 */
export async function prepareOwnBackend(kind: BackendKind, preferredPort: number): Promise<OwnBackend> {
  const script = `${LOCAL}/${kind}.sh`;
  const env = { ...process.env, FORMGATE_RUN_DIR: RUN_BASE };
  // Our own server of an earlier, interrupted run (same run dir) is stopped first; a stranger's ports are avoided.
  await run('bash', [script, 'stop', String(preferredPort)], { env, timeout: 90_000 }).catch(() => undefined);
  const port = await freePortPair(preferredPort);
  if (port !== preferredPort) {
    process.stderr.write(
      `[reliability] ${kind}: port ${preferredPort} or ${preferredPort + 1} is taken; using ${port}\n`,
    );
  }
  const instanceDir = resolve(RUN_BASE, `${kind}-${port}`);
  const pidFile = resolve(instanceDir, `${kind}.pid`);
  const sh = async (command: string, timeout: number) => {
    try {
      return (await run('bash', [script, command, String(port)], { env, timeout })).stdout;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(
        `${kind}.sh ${command} ${port} failed: ${e.stderr?.trim().split('\n').slice(-10).join('\n') || e.message}`,
      );
    }
  };
  const readPidOf = (file: string) => {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]?.trim());
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    // Guard against a recycled pid: the command line names this instance's run dir or its listen address.
    if (!cmdline.includes(instanceDir) && !cmdline.includes(`127.0.0.1:${port}`)) {
      throw new Error(`pid ${pid} in ${file} is not this ${kind}`);
    }
    return pid;
  };
  const readPid = () => readPidOf(pidFile);
  /** FerretDB's PostgreSQL postmaster (`ferretdb.sh` runs it in `<run dir>/postgres`); Kafka has none. */
  const readStoragePid = () => {
    if (kind !== 'ferretdb') throw new Error(`${kind} has no storage server of its own`);
    return readPidOf(resolve(instanceDir, 'postgres/postgres.pid'));
  };
  const running = () => {
    try {
      return alive(readPid());
    } catch {
      return false;
    }
  };
  // Stopped above on the preferred port; on another, a server of ours would have kept it from being free.
  rmSync(instanceDir, { recursive: true, force: true });
  // What `<kind>.sh start` prints last (`KAFKA_BROKERS=…` / `MONGO_URL=…`), known before it runs.
  const url = kind === 'kafka' ? `127.0.0.1:${port}` : `mongodb://127.0.0.1:${port}/`;
  const start = async () => {
    const last = (await sh('start', 180_000)).trim().split('\n').at(-1) ?? '';
    if (last.slice(last.indexOf('=') + 1) !== url) throw new Error(`${kind}.sh start printed "${last}", not ${url}`);
  };
  // Detached servers outlive a killed test process: never leave one behind.
  const killOnExit = () => {
    try {
      process.kill(readPid(), 'SIGKILL');
    } catch {}
  };
  process.once('exit', killOnExit);
  return {
    kind,
    port,
    url,
    async kill9() {
      const pid = readPid();
      process.kill(pid, 'SIGKILL');
      await untilGone([pid], kind, 10_000);
    },
    start,
    async killStorage() {
      const pid = readStoragePid();
      const servers = childrenOf(pid);
      process.kill(pid, 'SIGKILL');
      // Its server processes exit by themselves once they see the postmaster gone; until then a new one cannot start.
      await untilGone([pid], `${kind}'s PostgreSQL postmaster`, 30_000, listed);
      await untilGone(servers, `${kind}'s PostgreSQL server processes`, 30_000, listed);
      if (!running()) throw new Error(`${kind} itself died with its PostgreSQL`);
    },
    async startStorage() {
      const server = readPid();
      // ferretdb.sh finds FerretDB running and starts the PostgreSQL it needs before saying "already running".
      await start();
      if (readPid() !== server || !alive(readStoragePid())) throw new Error(`${kind}'s PostgreSQL did not start`);
      await untilWritable(url);
    },
    running,
    storageRunning() {
      try {
        return alive(readStoragePid());
      } catch {
        return false;
      }
    },
    async stop() {
      await sh('stop', 90_000);
      process.off('exit', killOnExit);
    },
  };
}
