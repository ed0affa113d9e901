import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMongoFormsStore } from '@formgate/forms';
import { connectMongo } from '@formgate/store/mongo';
import { type Backend, startBackend } from './backends.ts';
import { createFormgateApi, mintApiKey } from './formgate-api.ts';
import { freePort, REPO_ROOT, type ServerProcess, startServer } from './processes.ts';
import type { FormgateTarget } from './targets.ts';

/**
 * The P2 hook: Formgate in distributed mode (gateway process → ingest process → Kafka, acks=all), measured in the
 * same rounds as P1 with the same urlencoded payload. `startDistributedFormgate` returns a running target; or
 * `skipped` (the entry points do not exist yet, or `--no-p2`: reported, not judged); or `failed` (they exist but
 * the deployment did not come up: P2 fails).
 */
export type DistributedStart =
  | { target: FormgateTarget; pids: number[]; stop: () => Promise<void> }
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

export const KAFKA_PORT = 39092;
export const FERRETDB_PORT = 39017;

async function startProcesses(opts: { logDir: string; kafka: string; mongo: string; dbPrefix: string }) {
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    KAFKA_BROKERS: opts.kafka,
    MONGO_URL: opts.mongo,
    MONGO_DB_PREFIX: opts.dbPrefix,
    IDENTITY_SECRET: randomBytes(32).toString('base64url'),
    // Only forms reads it; the other services ignore it.
    FILE_LINK_SECRET: randomBytes(32).toString('base64url'),
  };
  const gatewayPort = await freePort();
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const mailRoot = mkdtempSync(join(tmpdir(), 'fg-bench-mail-'));
  const started: ServerProcess[] = [];
  const service = async (name: keyof typeof DISTRIBUTED_ENTRYPOINTS, env: Record<string, string> = {}) => {
    const p = await startServer({
      name: `p2-${name}`,
      script: DISTRIBUTED_ENTRYPOINTS[name],
      port: await freePort(),
      logDir: opts.logDir,
      env: { ...common, INSTANCE_ID: `bench-${name}`, ...env },
      bootTimeoutMs: 90_000,
      readyPath: '/healthz',
    });
    started.push(p);
    return p;
  };
  try {
    const [forms, billing, ingest, orgs] = await Promise.all([
      service('forms'),
      service('billing', { BILLING_SUBMISSIONS_PER_MONTH: '1000000000' }),
      service('ingest', { PUBLIC_URL: publicUrl }),
      service('orgs'),
    ]);
    const gateway = await startServer({
      name: 'p2-gateway',
      script: DISTRIBUTED_ENTRYPOINTS.gateway,
      port: gatewayPort,
      logDir: opts.logDir,
      env: {
        ...common,
        PUBLIC_URL: publicUrl,
        AUTH_SECRET: randomBytes(32).toString('base64url'),
        MAIL_DIR: join(mailRoot, 'mail'),
        FORMS_URL: forms.url,
        INGEST_URL: ingest.url,
        BILLING_URL: billing.url,
        ORGS_URL: orgs.url,
      },
    });
    started.push(gateway);
    return { gateway, started, api: createFormgateApi(gateway.url, await mintApiKey(gateway.url, mailRoot)) };
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
    const { gateway, started, api } = await startProcesses({ logDir: opts.logDir, kafka, mongo, dbPrefix });
    const openFormsStore = async () => {
      const conn = await connectMongo(mongo, `${dbPrefix}_forms`);
      return { store: await createMongoFormsStore(conn), close: () => conn.close() };
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
      target: { server: gateway, api, openFormsStore, countRawRows },
      pids: started.map((p) => p.pid),
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
