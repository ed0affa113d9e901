import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMongoFormsStores } from '@formgate/forms/mongo';
import { connectMongo } from '@formgate/store/mongo';
import { type Backend, startBackend } from './backends.ts';
import { createFormgateApi, mintApiKey } from './formgate-api.ts';
import { BENCH_PLANS_FILE, freePort, REPO_ROOT, type ServerProcess, sleep, startServer } from './processes.ts';
import type { FormgateTarget } from './targets.ts';

const run = promisify(execFile);

/** Debian's `psql` for the PostgreSQL that `ferretdb.sh` runs (`POSTGRES_BIN_DIR` as in `infra/local/postgres.sh`). */
function psqlPath(): string {
  const dir = process.env.POSTGRES_BIN_DIR ?? '/usr/lib/postgresql/15/bin';
  return existsSync(join(dir, 'psql')) ? join(dir, 'psql') : 'psql';
}

/**
 * Waits (at most `timeoutMs`) until PostgreSQL's autovacuum has analyzed every table of `schema` (a FerretDB
 * database) since its last bulk change: until then PostgreSQL plans FerretDB's pushed-down equalities with default
 * selectivities (`@>` on jsonb: a third of the table each), ANDs the GIN indexes of `formId`, `orgId` and `buckets`
 * and reads 215,000 index entries for a page of 100 (20 ms instead of 0.3 ms at 100,000 submissions). Nothing is
 * run on the server: autovacuum analyzes a table once a tenth of it changed, every minute (`autovacuum_naptime`),
 * as it did all along in a deployment that grew to this size.
 */
async function awaitAutoAnalyze(runDir: string, port: number, schema: string, timeoutMs = 150_000) {
  const start = performance.now();
  if ((process.env.FERRETDB_HANDLER ?? 'postgresql') !== 'postgresql') return 'FerretDB on SQLite: nothing to wait for';
  if (!/^[a-z0-9_]+$/.test(schema)) throw new Error(`unexpected schema name ${schema}`);
  const sql =
    `select count(*) from pg_stat_user_tables where schemaname = '${schema}' ` +
    'and n_mod_since_analyze > 50 + 0.1 * n_live_tup';
  for (;;) {
    const asked = await run(psqlPath(), [
      '-X',
      '-h',
      join(runDir, 'postgres', 'socket'),
      '-p',
      String(port + 1),
      '-U',
      'postgres',
      '-d',
      process.env.POSTGRES_DB ?? 'ferretdb',
      '-At',
      '-c',
      sql,
    ]).catch((err: Error) => err);
    const waited = ((performance.now() - start) / 1000).toFixed(0);
    if (asked instanceof Error)
      return `could not ask PostgreSQL whether it analyzed ${schema} (${asked.message}); measured at once`;
    const stdout = asked.stdout;
    if (stdout.trim() === '0') return `PostgreSQL's autovacuum analyzed ${schema} (waited ${waited} s)`;
    if (performance.now() - start > timeoutMs) {
      return `PostgreSQL's autovacuum had not analyzed ${schema} after ${waited} s (${stdout.trim()} tables left); measured anyway`;
    }
    await sleep(2_000);
  }
}

/**
 * The P2 hook: Formgate in distributed mode (gateway process → ingest process → Kafka, acks=all), measured in the
 * same rounds as P1 with the same urlencoded payload. `startDistributedFormgate` returns a running target; or
 * `skipped` (the entry points do not exist yet, or `--no-p2`: reported, not judged); or `failed` (they exist but
 * the deployment did not come up: P2 fails).
 */
export type DistributedStart =
  | {
      target: FormgateTarget;
      pids: number[];
      /** The deployment's processes (gateway, forms, billing, ingest, orgs), each serving `/metrics` (P11, P14). */
      processes: ServerProcess[];
      /** The ingest process, for requests that skip the gateway (P11). */
      ingest: ServerProcess;
      stop: () => Promise<void>;
      startNotifications: StartNotifications;
    }
  | { skipped: string }
  | { failed: string };

/** The process entry points P2 needs; P2 is skipped while any is missing. */
export const DISTRIBUTED_ENTRYPOINTS = {
  gateway: 'gateway/src/main.ts',
  ingest: 'services/ingest/src/main.ts',
  forms: 'services/forms/src/main.ts',
  billing: 'services/billing/src/main.ts',
  orgs: 'services/orgs/src/main.ts',
};

/** P12's extra process: started only when P12 runs, so P2–P10 measure the deployment without it. */
export const NOTIFICATIONS_ENTRYPOINT = 'services/notifications/src/main.ts';

/**
 * P12 (and P14) in distributed mode: a notifications process sending to `smtpUrl`, and a second gateway that routes
 * to it (the first one was started without `NOTIFICATIONS_URL`), with its own API key; named `<goal>-notifications`
 * and `<goal>-gateway` (`goal` is `p12` unless given). Both are stopped with the deployment, or earlier with `stop`.
 */
export type StartNotifications = (
  smtpUrl: string,
  goal?: string,
) => Promise<{
  target: Pick<FormgateTarget, 'server' | 'api'>;
  pids: number[];
  /** The notifications process and the second gateway, each serving `/metrics`. */
  processes: ServerProcess[];
  stop: () => Promise<void>;
}>;

/** The ports of the bench's own Kafka and FerretDB (`BENCH_KAFKA_PORT`, `BENCH_FERRETDB_PORT` when two benches share a machine). */
export const KAFKA_PORT = Number(process.env.BENCH_KAFKA_PORT ?? 39092);
export const FERRETDB_PORT = Number(process.env.BENCH_FERRETDB_PORT ?? 39017);

async function startProcesses(opts: { logDir: string; kafka: string; mongo: string; dbPrefix: string }) {
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    KAFKA_BROKERS: opts.kafka,
    MONGO_URL: opts.mongo,
    MONGO_DB_PREFIX: opts.dbPrefix,
    IDENTITY_SECRET: randomBytes(32).toString('base64url'),
    // Forms and notifications (P12) read it; the other services ignore it.
    FILE_LINK_SECRET: randomBytes(32).toString('base64url'),
    PRIVACY_KEY: randomBytes(32).toString('base64url'),
    // The bench's raised quotas: billing meters with them, forms and the gateway (accounts) enforce their limits.
    PLANS_FILE: BENCH_PLANS_FILE,
  };
  const gatewayPort = await freePort();
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const authSecret = randomBytes(32).toString('base64url');
  const started: ServerProcess[] = [];
  const service = async (name: keyof typeof DISTRIBUTED_ENTRYPOINTS, env: Record<string, string> = {}) => {
    const p = await startServer({
      name: `p2-${name}`,
      script: DISTRIBUTED_ENTRYPOINTS[name],
      port: await freePort(),
      logDir: opts.logDir,
      env: { ...common, INSTANCE_ID: `bench-${name}`, ...env },
      bootTimeoutMs: 90_000,
      readyPath: '/readyz',
      metricsPort: await freePort(),
    });
    started.push(p);
    return p;
  };
  const startGateway = async (name: string, port: number, env: Record<string, string>) => {
    const url = `http://127.0.0.1:${port}`;
    const mailDir = mkdtempSync(join(tmpdir(), 'fg-bench-mail-'));
    const gateway = await startServer({
      name,
      script: DISTRIBUTED_ENTRYPOINTS.gateway,
      port,
      logDir: opts.logDir,
      env: {
        ...common,
        PUBLIC_URL: url,
        AUTH_SECRET: authSecret,
        MAIL_DIR: join(mailDir, 'mail'),
        ...env,
      },
      // It listens before it has booted (answering 503): ready once its accounts database and views are.
      readyPath: '/readyz',
      metricsPort: await freePort(),
    });
    started.push(gateway);
    return { gateway, api: createFormgateApi(gateway.url, await mintApiKey(gateway.url, mailDir)) };
  };
  try {
    const [forms, billing, ingest, orgs] = await Promise.all([
      service('forms'),
      service('billing'),
      service('ingest', { PUBLIC_URL: publicUrl, INGEST_SECRET: randomBytes(32).toString('base64url') }),
      service('orgs'),
    ]);
    const upstreams = { FORMS_URL: forms.url, INGEST_URL: ingest.url, BILLING_URL: billing.url, ORGS_URL: orgs.url };
    const { gateway, api } = await startGateway('p2-gateway', gatewayPort, upstreams);
    const startNotifications: StartNotifications = async (smtpUrl, goal = 'p12') => {
      const before = started.length;
      const p12Port = await freePort();
      const notifications = await startServer({
        name: `${goal}-notifications`,
        script: NOTIFICATIONS_ENTRYPOINT,
        port: await freePort(),
        logDir: opts.logDir,
        env: {
          ...common,
          INSTANCE_ID: 'bench-notifications',
          // `BENCH_P12_LOG_LEVEL=info` to see what the notifications process does (its log is in logs/).
          LOG_LEVEL: process.env.BENCH_P12_LOG_LEVEL ?? 'silent',
          SMTP_URL: smtpUrl,
          // The webhook half of P12 delivers to the bench's receiver on loopback.
          WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
          PUBLIC_URL: `http://127.0.0.1:${p12Port}`,
          NOTIFICATIONS_LINK_SECRET: randomBytes(32).toString('base64url'),
        },
        bootTimeoutMs: 90_000,
        readyPath: '/readyz',
        metricsPort: await freePort(),
      });
      started.push(notifications);
      const p12 = await startGateway(`${goal}-gateway`, p12Port, {
        ...upstreams,
        NOTIFICATIONS_URL: notifications.url,
      });
      const mine = started.slice(before);
      return {
        target: { server: p12.gateway, api: p12.api },
        pids: mine.map((p) => p.pid),
        processes: mine,
        stop: async () => {
          await Promise.allSettled(mine.map((p) => p.stop()));
        },
      };
    };
    return { gateway, ingest, consumers: [forms, billing], started, api, startNotifications };
  } catch (err) {
    await Promise.allSettled(started.map((p) => p.stop()));
    throw err;
  }
}

/**
 * Kafka (`infra/local/kafka.sh`, port 39092) and FerretDB on PostgreSQL (`infra/local/ferretdb.sh`, ports 39017-39018) with their run
 * directories under `workDir`, then one forms, billing and ingest process and the gateway in front of them.
 */
export async function startDistributedFormgate(opts: { workDir: string; logDir: string }): Promise<DistributedStart> {
  const missing = Object.values(DISTRIBUTED_ENTRYPOINTS).filter((p) => !existsSync(join(REPO_ROOT, p)));
  if (missing.length) return { skipped: `not built yet (${missing.join(', ')} missing)` };
  const runBase = join(opts.workDir, 'infra');
  mkdirSync(runBase, { recursive: true });
  // As root, infra/local runs PostgreSQL as the postgres user, which must reach its run dir (mkdtemp made it 0700).
  chmodSync(opts.workDir, 0o755);
  const backends: Backend[] = [];
  const stopBackends = async () => {
    for (const b of backends.reverse()) await b.stop().catch(() => undefined);
  };
  try {
    backends.push(await startBackend('kafka.sh', KAFKA_PORT, runBase));
    backends.push(await startBackend('ferretdb.sh', FERRETDB_PORT, runBase));
    const [kafka, mongo] = backends.map((b) => b.value) as [string, string];
    const dbPrefix = `fg_bench_${randomBytes(4).toString('hex')}`;
    const { gateway, ingest, consumers, started, api, startNotifications } = await startProcesses({
      logDir: opts.logDir,
      kafka,
      mongo,
      dbPrefix,
    });
    const openFormsStore = async () => {
      const conn = await connectMongo(mongo, `${dbPrefix}_forms`);
      if (!conn.db) throw new Error('not connected');
      // The forms service migrated the database before it started.
      return { store: (await createMongoFormsStores(conn.db)).submissions, close: () => conn.close() };
    };
    const countRawRows = async (formId: string) => {
      const conn = await connectMongo(mongo, `${dbPrefix}_forms`);
      try {
        const db = conn.db;
        if (!db) throw new Error('not connected');
        let rows = 0;
        // Unsorted, like the export on FerretDB 1.24 (ADR 0022): a sort there decodes and sorts every row first.
        const cursor = db.collection('form_submissions').find({ formId }).batchSize(500);
        for await (const _doc of cursor) rows++;
        return rows;
      } finally {
        await conn.close();
      }
    };
    return {
      target: {
        server: gateway,
        api,
        // P2's stages: ingest's own and the gateway's hop in front of it.
        metricsUrls: [gateway, ingest].flatMap((p) => (p.metricsUrl ? [p.metricsUrl] : [])),
        ingestUrl: ingest.url,
        consumerPids: consumers.map((p) => p.pid),
        openFormsStore,
        countRawRows,
        settle: () => awaitAutoAnalyze(join(runBase, `ferretdb-${FERRETDB_PORT}`), FERRETDB_PORT, `${dbPrefix}_forms`),
      },
      pids: started.map((p) => p.pid),
      processes: [...started],
      ingest,
      startNotifications,
      stop: async () => {
        await Promise.allSettled(started.map((p) => p.stop()));
        await stopBackends();
      },
    };
  } catch (err) {
    await stopBackends();
    const message = err instanceof Error ? err.message : String(err);
    return { failed: `distributed mode did not start: ${message.split('\n').slice(0, 6).join(' ')}` };
  }
}
