import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { freePort } from '@formgate/kit/testing';
import { extractLinks } from '@formgate/mail';
import { startSmtpTestServer } from '@formgate/mail/testing';
import { createAccounts, createOrgKeys } from './accounts.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** The plans of test deployments: the defaults' shape, with a free plan of the interim limits (50,000 / 1,000). */
export const ROOMY_PLANS_FILE = resolve(import.meta.dirname, 'plans/roomy.json');
/** Every process's output is kept here, for reading after a failed run. */
export const PROCESS_LOG_DIR = resolve(ROOT, '.run/test/logs');

/** Below the ephemeral range, so no client socket takes it before the child binds it (`@formgate/kit/testing`). */
export { freePort };

export interface RunningProcess {
  name: string;
  port: number;
  url: string;
  /** Its `GET /metrics` (on `METRICS_PORT`, a free port of its own unless `env` names one). */
  metricsUrl: string;
  child: ChildProcess;
  output: () => string;
  /** What it was started with (the port included), so `restartProcess` brings it back the same. */
  entry: string;
  env: Record<string, string>;
}

/**
 * What `startProcess` waits for: `ready` — `GET /readyz` answers 200 (built, started, its backends answer); `alive`
 * — `GET /healthz` answers 200, which a process does as soon as it listens, before its backends are there.
 */
export type StartedWhen = 'ready' | 'alive';

/** Starts `entry` (a `main.ts`) as its own Node process and waits until it is ready (or only alive). */
export async function startProcess(
  name: string,
  entry: string,
  env: Record<string, string>,
  when: StartedWhen = 'ready',
): Promise<RunningProcess> {
  const port = Number(env.PORT ?? (await freePort()));
  const metricsPort = Number(env.METRICS_PORT ?? (await freePort()));
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, entry)], {
    cwd: ROOT,
    // The roomy plans unless the test names its own: a test holds submissions over a quota only when it means to.
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      PLANS_FILE: ROOMY_PLANS_FILE,
      ...env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  mkdirSync(PROCESS_LOG_DIR, { recursive: true });
  const logFile = resolve(PROCESS_LOG_DIR, `${name}.log`);
  const keep = (d: Buffer) => {
    out = (out + d.toString()).slice(-20_000);
    appendFileSync(logFile, d);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // Never outlive the test process, even when it is killed mid-run.
  const killChild = () => child.kill('SIGKILL');
  process.once('exit', killChild);
  child.once('exit', () => process.off('exit', killChild));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${url}/${when === 'ready' ? 'readyz' : 'healthz'}`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not become ${when}:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    port,
    url,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    child,
    output: () => out,
    entry,
    env: { ...env, PORT: String(port), METRICS_PORT: String(metricsPort) },
  };
}

/** Starts a process again from what `p` was started with: same entry, environment and port. `p` must be gone. */
export function restartProcess(p: RunningProcess): Promise<RunningProcess> {
  if (p.child.exitCode === null && p.child.signalCode === null) throw new Error(`${p.name} is still running`);
  return startProcess(p.name, p.entry, p.env);
}

export async function stopProcess(p: RunningProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise<void>((r) => p.child.once('exit', () => r()));
  p.child.kill(signal);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}

/** A new private bucket on the e2e tier's S3 server, and the settings (`FILE_STORE=s3`) that point a service at it. */
export async function s3FileStoreEnv(bucket: string): Promise<Record<string, string>> {
  const url = process.env.S3_TEST_URL;
  if (!url) throw new Error('S3_TEST_URL is not set: the e2e global setup provides it');
  const u = new URL(url);
  const endpoint = `${u.protocol}//${u.host}`;
  const credentials = { accessKeyId: decodeURIComponent(u.username), secretAccessKey: decodeURIComponent(u.password) };
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  return {
    FILE_STORE: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: credentials.accessKeyId,
    S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  };
}

/**
 * Formgate in distributed mode: the gateway and every service as separate processes on a real Kafka broker and
 * Mongo-wire server, with `ingest` and `forms` as two instances each.
 */
export async function startDistributed(opts: {
  kafkaBrokers: string;
  mongoUrl: string;
  /** More settings of the gateway (e.g. `WEB_DIR`). */
  gatewayEnv?: Record<string, string>;
  /** More settings of the notifications instances (e.g. `WEBHOOKS_ALLOW_PRIVATE_TARGETS`). */
  notificationsEnv?: Record<string, string>;
  /** Notifications instances: `notifications`, then `notifications-2`… (default 1). */
  notificationsInstances?: number;
  /** The plans of every process (default: the roomy plans no test reaches unless it means to). */
  plansFile?: string;
  /** More settings of billing (e.g. `BILLING_ENABLED`). */
  billingEnv?: Record<string, string>;
  /** More settings of both forms instances (e.g. `CLAMAV_ADDRESS`). */
  formsEnv?: Record<string, string>;
  /** More settings of both ingest instances (e.g. `CAPTCHA_VERIFY_URL_TURNSTILE`). */
  ingestEnv?: Record<string, string>;
  /** More settings of every process (e.g. `OTEL_EXPORTER_OTLP_ENDPOINT`). */
  env?: Record<string, string>;
  /**
   * The deployment's namespace on the shared broker (`KAFKA_TOPIC_PREFIX`, ADR 53). Default: one of its own
   * (`e2e-<random>.`), so deployments of files running at once never see each other's topics and groups. `''`
   * for the plain names (the reliability tier's fault injectors read and write them directly).
   */
  kafkaTopicPrefix?: string;
  /** Whether it resolves once every process is ready (default) or only alive (its backends may not be there yet). */
  startedWhen?: StartedWhen;
  /**
   * Where forms and ingest keep files: GridFS (default) or a bucket of the deployment's own on the e2e tier's S3
   * server (`S3_TEST_URL`).
   */
  fileStore?: 'gridfs' | 's3';
}) {
  const secret = randomBytes(32).toString('base64url');
  const deployment = randomBytes(4).toString('hex');
  const smtp = await startSmtpTestServer();
  const gatewayPort = await freePort();
  const publicUrl = `http://127.0.0.1:${gatewayPort}`;
  const shared = {
    KAFKA_BROKERS: opts.kafkaBrokers,
    KAFKA_TOPIC_PREFIX: opts.kafkaTopicPrefix ?? `e2e-${deployment}.`,
    MONGO_URL: opts.mongoUrl,
    MONGO_DB_PREFIX: `fg_e2e_${deployment}`,
    IDENTITY_SECRET: secret,
    // Billing, forms (its forms limit) and the gateway: a default plan no test reaches unless it means to.
    PLANS_FILE: opts.plansFile ?? ROOMY_PLANS_FILE,
    ...opts.env,
  };
  const fileEnv = opts.fileStore === 's3' ? await s3FileStoreEnv(`fg-e2e-${deployment}`) : {};
  const processes: Record<string, RunningProcess> = {};
  const notificationsNames = Array.from({ length: opts.notificationsInstances ?? 1 }, (_, i) =>
    i === 0 ? 'notifications' : `notifications-${i + 1}`,
  );
  const start = async (name: string, entry: string, env: Record<string, string> = {}) => {
    processes[name] = await startProcess(name, entry, { ...shared, INSTANCE_ID: name, ...env }, opts.startedWhen);
    return processes[name];
  };
  const startServices = async () => {
    // Settled, not `Promise.all`: when one fails, the others are still starting; waiting for them records every
    // process that did start, so the cleanup below stops it (otherwise those started beside a failed one keep running).
    const started = await Promise.allSettled([
      start('forms-1', 'services/forms/src/main.ts', {
        FILE_LINK_SECRET: secret,
        PRIVACY_KEY: secret,
        ...fileEnv,
        ...opts.formsEnv,
      }),
      start('forms-2', 'services/forms/src/main.ts', {
        FILE_LINK_SECRET: secret,
        PRIVACY_KEY: secret,
        ...fileEnv,
        ...opts.formsEnv,
      }),
      start('billing', 'services/billing/src/main.ts', opts.billingEnv),
      start('orgs', 'services/orgs/src/main.ts'),
      ...notificationsNames.map((name) =>
        start(name, 'services/notifications/src/main.ts', {
          SMTP_URL: smtp.url,
          PUBLIC_URL: publicUrl,
          FILE_LINK_SECRET: secret,
          NOTIFICATIONS_LINK_SECRET: secret,
          ...opts.notificationsEnv,
        }),
      ),
      ...['ingest-1', 'ingest-2'].map((name) =>
        start(name, 'services/ingest/src/main.ts', {
          PUBLIC_URL: publicUrl,
          INGEST_SECRET: secret,
          ...fileEnv,
          ...opts.ingestEnv,
        }),
      ),
    ]);
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  // One secret for every gateway of this deployment: a session cookie is valid on all of them, across restarts.
  const authSecret = randomBytes(32).toString('base64url');
  const gatewayEnv = () => ({
    AUTH_SECRET: authSecret,
    SMTP_URL: smtp.url,
    AUTH_SIGN_IN_PER_MINUTE: '10000',
    USER_LOOKUPS_PER_MINUTE: '10000',
    FORMS_URL: [processes['forms-1']?.url, processes['forms-2']?.url].join(','),
    INGEST_URL: [processes['ingest-1']?.url, processes['ingest-2']?.url].join(','),
    BILLING_URL: processes.billing?.url ?? '',
    ORGS_URL: processes.orgs?.url ?? '',
    NOTIFICATIONS_URL: notificationsNames.map((name) => processes[name]?.url ?? '').join(','),
    ...opts.gatewayEnv,
  });
  const startGateway = () =>
    start('gateway', 'gateway/src/main.ts', { ...gatewayEnv(), PORT: String(gatewayPort), PUBLIC_URL: publicUrl });
  const stopAll = () => Promise.all(Object.values(processes).map((p) => stopProcess(p)));
  try {
    await startServices();
    await startGateway();
  } catch (err) {
    await stopAll();
    await smtp.stop();
    throw err;
  }
  const mailLink = async (email: string, subject: RegExp) => {
    const mail = await smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject), 15_000);
    const [link] = extractLinks(mail.text);
    if (!link) throw new Error(`no link in "${mail.subject}"`);
    return link;
  };
  const accounts = createAccounts(publicUrl, mailLink);

  return {
    baseUrl: publicUrl,
    identitySecret: secret,
    /** The forms and ingest file store settings (`FILE_STORE=s3` and its bucket), empty on GridFS. */
    fileStoreEnv: fileEnv,
    mongoDbPrefix: shared.MONGO_DB_PREFIX,
    /** Its `KAFKA_TOPIC_PREFIX`: a bus of the test's own on this deployment's topics needs it too. */
    kafkaTopicPrefix: shared.KAFKA_TOPIC_PREFIX,
    processes,
    accounts,
    smtp,
    /** The first link of the latest mail to `email` whose subject matches (over the test's SMTP server). */
    mailLink,
    /** The write API key of organization `org` (its owner signs up, over SMTP, on first use). */
    apiKey: createOrgKeys(accounts),
    /**
     * Starts one more gateway in front of the same services and databases, with `env` over the usual settings;
     * it is stopped with the cluster, or earlier by `stopProcess`.
     */
    async startExtraGateway(name: string, env: Record<string, string> = {}) {
      const port = await freePort();
      return start(name, 'gateway/src/main.ts', {
        ...gatewayEnv(),
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...env,
      });
    },
    /** Starts the process `name` again on its port and environment, after a fault stopped it. */
    async restart(name: string) {
      const old = processes[name];
      if (!old) throw new Error(`no process ${name}`);
      processes[name] = await restartProcess(old);
      return processes[name];
    },
    /** Stops every process (SIGTERM, draining) and starts them again on fresh ports, the gateway on its own. */
    async restartAll() {
      await stopAll();
      await startServices();
      await startGateway();
    },
    async stop() {
      await stopAll();
      await smtp.stop();
    },
  };
}
