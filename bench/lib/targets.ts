import { join } from 'node:path';
import { createSqliteFormsStores, type SubmissionReadModel } from '@formgate/forms';
import { openSqlite } from '@formgate/store/sqlite';
import { createFormgateApi, type FormgateApi, type MailLinks, mintApiKey } from './formgate-api.ts';
import { BENCH_PLANS_FILE, freePort, type ServerProcess, startServer } from './processes.ts';

export const B0_SCRIPT = 'bench/baselines/b0-server.ts';
export const B1_SCRIPT = 'bench/baselines/b1-server.ts';
export const EMBEDDED_SCRIPT = 'hosts/embedded/src/main.ts';

/** A baseline server (B0 or B1) on a fresh port. */
export async function startBaseline(name: 'B0' | 'B1', logDir: string): Promise<ServerProcess> {
  const script = name === 'B0' ? B0_SCRIPT : B1_SCRIPT;
  return startServer({ name, script, port: await freePort(), env: { NODE_ENV: 'production' }, logDir });
}

export interface FormgateTarget {
  server: ServerProcess;
  api: FormgateApi;
  /** The `/metrics` of every process that handles `/f/*` (ingest's stage budget, the gateway's hop). */
  metricsUrls?: string[];
  /** Distributed mode: the ingest process itself, behind the gateway (P3 loads it directly). */
  ingestUrl?: string;
  /** Distributed mode: the processes that consume submission events (forms, billing), stopped during P2 (ADR 79). */
  consumerPids?: number[];
  /** The deployment's forms store, opened from the bench process for seeding (P8): its batch write path. */
  openFormsStore(): Promise<{ store: SubmissionReadModel; close(): Promise<void> }>;
  /** CUR (P10): reads every stored submission of the form newest first with a raw cursor, no formatting. */
  countRawRows(formId: string): Promise<number>;
  /**
   * After a bulk seed (P8, P9): waits until the database's own maintenance has caught up with it, as it has in a
   * deployment that grew to that size over days; resolves with what it waited for, for the log.
   */
  settle?(): Promise<string>;
}

/**
 * Formgate in embedded mode (`hosts/embedded/src/main.ts`) with a fresh `dataDir`, silent logs and a quota
 * high enough that no bench submission is held back. With `smtp`, its mail (account and notification mails alike)
 * goes to that SMTP server, and the sign-up link is read from it; otherwise mails are files under `dataDir/mail`.
 */
export async function startEmbeddedFormgate(opts: {
  dataDir: string;
  logDir: string;
  synchronous: 'FULL' | 'NORMAL';
  name?: string;
  smtp?: { url: string; links: Exclude<MailLinks, string> };
}): Promise<FormgateTarget> {
  const port = await freePort();
  const metricsPort = await freePort();
  const server = await startServer({
    name: opts.name ?? 'formgate-embedded',
    script: EMBEDDED_SCRIPT,
    port,
    logDir: opts.logDir,
    readyPath: '/readyz',
    env: {
      NODE_ENV: 'production',
      DATA_DIR: opts.dataDir,
      LOG_LEVEL: 'silent',
      SQLITE_SYNCHRONOUS: opts.synchronous,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      METRICS_PORT: String(metricsPort),
      PLANS_FILE: BENCH_PLANS_FILE,
      // P12 (with `smtp`) also delivers webhooks to the bench's receiver on loopback.
      ...(opts.smtp ? { SMTP_URL: opts.smtp.url, WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' } : {}),
    },
  });
  return {
    server,
    api: createFormgateApi(server.url, await mintApiKey(server.url, opts.smtp?.links ?? opts.dataDir)),
    metricsUrls: [`http://127.0.0.1:${metricsPort}/metrics`],
    // forms.db is not held exclusively: WAL lets the bench write while the server reads.
    async openFormsStore() {
      const db = openSqlite(join(opts.dataDir, 'forms.db'), { synchronous: opts.synchronous });
      // The running server may still be projecting the burst rounds into this file: wait for its writers.
      db.pragma('busy_timeout = 120000');
      return { store: createSqliteFormsStores(db).submissions, close: async () => void db.close() };
    },
    async countRawRows(formId) {
      const db = openSqlite(join(opts.dataDir, 'forms.db'), { synchronous: opts.synchronous });
      try {
        let rows = 0;
        const query = db.prepare('SELECT id, created_at, doc FROM submissions WHERE form_id = ? ORDER BY seq DESC');
        for (const _row of query.iterate(formId)) rows++;
        return rows;
      } finally {
        db.close();
      }
    },
  };
}
