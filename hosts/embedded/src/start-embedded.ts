import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AdapterWrapper,
  accountSettings,
  createAccounts,
  createMailer,
  createSqliteAccountsStore,
} from '@formgate/accounts';
import { type EventBus, traced } from '@formgate/bus';
import { createGateway, formsCaller, siteConfigFrom, startSiteProvisioning, type Target } from '@formgate/gateway';
import { altchaDifficulty, captchaVerifyConfig, createIngestService } from '@formgate/ingest';
import {
  createHttpServer,
  createIdentityCodec,
  createLogger,
  createMetrics,
  createReadiness,
  createStoreHealth,
  drainServer,
  type EmbeddedSecretName,
  type Logger,
  listen,
  loadPlans,
  serveMetrics,
  startedCheck,
  startingHandler,
  startTracing,
  systemClock,
  systemIds,
  withMetricsFrom,
  withReadyz,
} from '@formgate/kit';
import { createSqliteBlobStore, openSqlite, sqliteProbe } from '@formgate/store/sqlite';
import type { EmbeddedConfig } from './config.ts';
import { embeddedSecret } from './secrets.ts';
import { SOURCE_THREAD_SCRIPTS, startHostThreads, type ThreadScripts } from './threads/host-threads.ts';
import type { ThreadService } from './threads/services-worker.ts';

const WEB_DIST = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/** What `main.ts` or a test sets beyond the configuration: the threads' modules, what a dead thread does, test seams. */
export interface EmbeddedSeams {
  /** Test seam: wraps the accounts database adapter (`createAdapterFaults` from `@formgate/accounts/testing`). */
  wrapAccountsAdapter?: AdapterWrapper;
  /** Test seam: receives the embedded log once it is open: a test publishes or reads what another component would. */
  exposeBus?: (bus: EventBus) => void;
  /** The threads' modules (`main.ts` of the production bundle names its own; default: from source). */
  threadScripts?: ThreadScripts;
  /** Called when the log or services thread stops without being asked to (`main.ts`: the process exits). */
  onFatal?: (err: Error) => void;
}

/**
 * The embedded composition root: one process of three threads (ADR 77) — this one with the gateway, accounts and
 * ingest, the log thread, the services thread — and SQLite files under `DATA_DIR`. Resolves once it listens;
 * `stop()` drains requests, lets consumers commit and closes every file. A boot that fails half-way closes what it
 * had started before it rejects.
 */
export async function startEmbedded(config: EmbeddedConfig, seams: EmbeddedSeams = {}) {
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'formgate' });
  // What was started, closed in reverse order by `stop()` or by a failed boot.
  const closers: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  try {
    return await boot(config, seams, logger, closers, closeAll);
  } catch (err) {
    await closeAll().catch((e) => logger.error({ err: e }, 'closing what a failed boot had started'));
    throw err;
  }
}

async function boot(
  config: EmbeddedConfig,
  seams: EmbeddedSeams,
  logger: Logger,
  closers: (() => unknown)[],
  closeAll: () => Promise<void>,
) {
  // Before anything is built: services decide once whether to trace (OTEL_EXPORTER_OTLP_ENDPOINT, ADR 51).
  const tracing = await startTracing('formgate', config);
  closers.push(() => tracing?.stop());
  // Before anything listens or opens: a bad PLANS_FILE stops the boot listing every problem.
  const catalog = loadPlans(config.PLANS_FILE);
  // Listen first: with PORT=0 the public URL (cookies, links in emails) is known only then.
  // Until then `/healthz` says alive and every other request gets the API's 503 `UPSTREAM_UNAVAILABLE` envelope.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = startingHandler;
  // `GET /readyz` (docs/operations.md): 503 until every service started (views replayed) and from shutdown on.
  const readiness = createReadiness({
    onChange: (check, ok, err) =>
      ok ? logger.info({ check }, 'ready again') : logger.warn({ check, err }, 'readiness check failing'),
  });
  const started = startedCheck('starting: services and views not ready yet');
  readiness.register('started', started.check);
  const server = createHttpServer(withReadyz(readiness, (req, res) => handler(req, res)));
  const port = await listen(server, config.PORT, config.HOST);
  // `stop()` drains it first of all; a failed boot closes it last.
  closers.push(() => (server.listening ? drainServer(server) : undefined));
  const publicUrl = config.PUBLIC_URL ?? `http://localhost:${port}`;
  const trustedOrigins = config.PUBLIC_URL ? [publicUrl] : [publicUrl, `http://127.0.0.1:${port}`];

  // This thread's registry (the gateway, ingest, accounts, Node's own metrics); `/metrics` adds the other threads'.
  const metrics = createMetrics();
  // The threads' series join once they run (one exposition for the process).
  const metricsFrom: (() => Promise<unknown[]>)[] = [];
  const metricsServer =
    config.METRICS_PORT === undefined
      ? undefined
      : await serveMetrics(
          withMetricsFrom(metrics, () => Promise.all(metricsFrom.map((read) => read()))),
          { port: config.METRICS_PORT, host: config.HOST, logger },
        );
  closers.push(() => metricsServer?.stop());
  // The SQLite files answer a read of their schema (a real read of the file, not a no-op `SELECT 1`).
  const storeHealth = createStoreHealth({
    onChange: (store, ok, err) =>
      ok ? logger.info({ store }, 'store answers again') : logger.warn({ store, err }, 'store does not answer'),
  });
  // Without its log or services thread the process would take submissions it cannot keep or deliver (ADR 77).
  const threadEnded = (err: Error) => {
    logger.fatal({ err }, 'a thread of the process stopped: it can no longer keep or deliver submissions');
    seams.onFatal?.(err);
  };
  const identitySecret = randomBytes(32).toString('base64url');
  const codec = createIdentityCodec(identitySecret);
  const secret = (name: EmbeddedSecretName, configured?: string, previous?: string) =>
    embeddedSecret(config.DATA_DIR, name, configured, previous);
  // This thread's files; the services thread opens its own (forms, billing, orgs, notifications).
  const dbs = {
    blobs: openSqlite(join(config.DATA_DIR, 'blobs.db'), { synchronous: config.SQLITE_SYNCHRONOUS }),
    auth: openSqlite(join(config.DATA_DIR, 'auth.db')),
  };
  closers.push(() => {
    for (const db of Object.values(dbs)) db.close();
  });
  for (const [name, db] of Object.entries(dbs)) storeHealth.register(`sqlite:${name}`, sqliteProbe(db));
  // Uploads live in SQLite (ADR 11); opened (and migrated) here before the services thread opens the file too.
  const blobs = createSqliteBlobStore(dbs.blobs);
  // The log and the services on threads of their own (ADR 77): this one answers `/f/*` and appends, the log thread
  // commits, the services thread projects, meters and notifies. They run before ingest starts: it answers once its
  // views have replayed.
  const threads = await startHostThreads({
    config,
    scripts: seams.threadScripts ?? SOURCE_THREAD_SCRIPTS,
    services: {
      publicUrl,
      identitySecret,
      fileLinkSecret: secret('file-link-secret', config.FILE_LINK_SECRET, config.FILE_LINK_SECRET_PREVIOUS),
      privacyKey: secret('privacy-key', config.PRIVACY_KEY, config.PRIVACY_KEY_PREVIOUS),
      notificationsLinkSecret: secret(
        'notifications-link-secret',
        config.NOTIFICATIONS_LINK_SECRET,
        config.NOTIFICATIONS_LINK_SECRET_PREVIOUS,
      ),
    },
    logger,
    onExit: threadEnded,
    // This thread's consumers (accounts' quota warnings) write `auth.db`: an outage of it is judged here (ADR 68).
    storeHealthy: (options) => storeHealth.healthy(options),
  });
  // Stopped in reverse: the services thread (its consumers commit), this thread's end of the log, the log thread.
  closers.push(() => threads.log.stop());
  closers.push(() => threads.bus.close());
  closers.push(() => threads.services.stop());
  metricsFrom.push(
    () => threads.log.metricsJson(),
    () => threads.services.metricsJson(),
  );
  storeHealth.register('sqlite:bus', async () => {
    if (!(await threads.log.healthy(true))) throw new Error('the event log file does not answer');
  });
  storeHealth.register('services-thread', async () => {
    if (!(await threads.services.healthy(true)))
      throw new Error('a database file of the services thread does not answer');
  });
  readiness.register('stores', async () => {
    if (!(await storeHealth.healthy())) throw new Error('a database file does not answer');
  });
  const bus = tracing ? traced(threads.bus, tracing, 'formgate-log') : threads.bus;
  readiness.register('bus', () => bus.ping());
  seams.exposeBus?.(bus);
  const common = { bus, clock: systemClock, ids: systemIds, identity: codec, metrics, storeHealth, tracing };
  const ingestSecret = secret('ingest-secret', config.INGEST_SECRET, config.INGEST_SECRET_PREVIOUS);
  const operatorToken = secret('operator-token', config.OPERATOR_TOKEN, config.OPERATOR_TOKEN_PREVIOUS);
  const ingest = createIngestService({
    ...common,
    logger: logger.child({ service: 'ingest' }),
    blobs,
    publicBaseUrl: publicUrl,
    secret: ingestSecret.current,
    previousSecret: ingestSecret.previous,
    captcha: captchaVerifyConfig(config),
    altchaDifficulty: altchaDifficulty(config),
    // Called in process by the gateway, which resolved the client's address on this very request.
    trustedProxies: config.TRUSTED_PROXIES,
    catalog,
  });
  await ingest.start();
  closers.push(() => ingest.stop());
  const thread = (name: ThreadService): Target => ({ kind: 'http', urls: [threads.services.ready[name]] });
  const settings = accountSettings(config);
  const mailer = createMailer({ ...settings, mailDir: join(config.DATA_DIR, 'mail'), logger, logLinks: true });
  closers.push(() => mailer.close());

  const authSecret = secret('auth-secret', config.AUTH_SECRET, config.AUTH_SECRET_PREVIOUS);
  const accounts = createAccounts({
    ...common,
    ...settings,
    store: createSqliteAccountsStore(dbs.auth),
    publicUrl,
    trustedOrigins,
    // Sessions are signed with the current secret only: a rotation signs every session out (ADR 50); the previous one
    // still decrypts two-factor secrets until start encrypts them again.
    secret: authSecret.current,
    previousSecret: authSecret.previous,
    mailer,
    logger: logger.child({ component: 'accounts' }),
    wrapAdapter: seams.wrapAccountsAdapter,
  });
  await accounts.start();
  closers.push(() => accounts.stop());
  // `/api/v1/site` shows the default plan's limits (the plans themselves: `/api/v1/plans`).
  const { submissionsPerMonth, emailsPerMonth } = catalog.resolve(undefined).limits;
  const limits = { submissionsPerMonth, emailsPerMonth };
  // The site organization and its forms (ADR 23): every service already runs, so this is done before listening.
  const provisioning = startSiteProvisioning({
    site: accounts.site,
    signer: codec,
    call: formsCaller(thread('forms')),
    logger,
  });
  closers.push(() => provisioning.stop());
  await provisioning.ready;
  const gateway = createGateway({
    targets: {
      ingest: { kind: 'in-process', app: ingest.app, handle: ingest.handle, settled: ingest.settled },
      forms: thread('forms'),
      billing: thread('billing'),
      orgs: thread('orgs'),
      notifications: thread('notifications'),
    },
    accounts,
    signer: codec,
    logger,
    storeHealth,
    trustedOrigins,
    trustedProxies: settings.trustedProxies,
    operator: {
      token: operatorToken.current,
      previousToken: operatorToken.previous,
      bus,
      site: accounts.site,
      organizations: accounts.organizations,
      plans: catalog,
    },
    webDir: config.WEB_DIR ?? WEB_DIST,
    apiReferenceBundle: config.API_REFERENCE_BUNDLE,
    site: () => siteConfigFrom(config, limits, provisioning.keys()),
    ...(config.PUBLIC_URL ? { publicUrl: config.PUBLIC_URL } : {}),
    metrics,
    tracing,
  });
  closers.push(() => gateway.close());
  handler = gateway.handle;
  started.started();
  logger.info({ port, dataDir: config.DATA_DIR }, `Formgate (embedded) listening on ${publicUrl}`);

  return {
    port,
    publicUrl,
    /** Where `GET /metrics` answers (`METRICS_PORT`; 0 picks a free one), if it was set. */
    metricsPort: metricsServer?.port,
    /** The embedded log (for tests: to publish what another service's work would, e.g. a quota view). */
    bus,
    readiness,
    /**
     * Readiness turns 503 and in-flight requests finish; then, in the reverse of the boot's order, the gateway,
     * accounts and ingest stop, the services thread's consumers commit and it closes its files, then the log thread,
     * this thread's files and servers.
     */
    async stop() {
      readiness.drain();
      await drainServer(server);
      await closeAll();
    },
  };
}
