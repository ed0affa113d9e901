/**
 * The services thread of embedded mode (ADR 77): forms, billing, orgs and notifications, each with its SQLite file
 * (this thread is their only writer) and its HTTP app on a loopback port the gateway forwards to. The event log is
 * the log thread's, reached over `workerData.busPort`. Started by `start-embedded.ts`; never run on its own.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { type MessagePort, workerData } from 'node:worker_threads';
import { accountSettings, createMailer } from '@formgate/accounts';
import { createBillingService, createSqliteBillingStores, migrateSqliteBilling } from '@formgate/billing';
import { traced } from '@formgate/bus';
import { createPortBus } from '@formgate/bus/port';
import {
  createClamavScanner,
  createFormsService,
  createSqliteFormsStores,
  FORMS_MIGRATION_SCOPE,
  sqliteFormsMigrations,
} from '@formgate/forms';
import {
  createFileLinks,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  createMetrics,
  createPrivacyKeys,
  createStoreHealth,
  drainServer,
  type Logger,
  listen,
  loadPlans,
  type StoreHealth,
  startTracing,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { createMailFiles } from '@formgate/mail';
import {
  createEmailComposer,
  createNotificationsService,
  createSqliteNotificationStores,
  createSqliteRecipientStore,
  createSqliteWebhookEndpointStore,
  migrateSqliteNotifications,
} from '@formgate/notifications';
import { createOrgsService, createSqliteOrgsStores, migrateSqliteOrgs } from '@formgate/orgs';
import { createSqliteBlobStore, openSqlite, runSqliteMigrations, sqliteProbe } from '@formgate/store/sqlite';
import type { EmbeddedConfig } from '../config.ts';
import { createEmbeddedErasureSweep } from './erasure-sweep.ts';
import { runThread, type ThreadRunning } from './run-thread.ts';
import { lowerThreadPriority } from './thread-priority.ts';

/** A secret as `embeddedSecret` answers it: the one in use and the one being rotated out. */
export interface ThreadSecret {
  current: string;
  previous?: string;
}

/** What the main thread hands the services thread (`workerData`). */
export interface ServicesThreadData {
  config: EmbeddedConfig;
  publicUrl: string;
  /** The identity codec's key: the gateway signs who is calling, the services verify it. */
  identitySecret: string;
  /** Read or created under `DATA_DIR` by the main thread only. */
  fileLinkSecret: ThreadSecret;
  notificationsLinkSecret: ThreadSecret;
  /** Keys the address index and signs erasure receipts (issue 31). */
  privacyKey: ThreadSecret;
  /** The log thread serves the event log on the other end (`serveBus`). */
  busPort: MessagePort;
}

/** The services this thread runs, each answering on its own loopback port. */
export type ThreadService = 'forms' | 'billing' | 'orgs' | 'notifications';

const data = workerData as ServicesThreadData;

type Common = Pick<
  Parameters<typeof createFormsService>[0],
  'bus' | 'clock' | 'ids' | 'identity' | 'metrics' | 'storeHealth' | 'tracing'
>;

/** The thread's SQLite files at their latest shape (ADR 72), each with its store-health probe. */
function openStores(config: EmbeddedConfig, storeHealth: StoreHealth) {
  const sqlite = (name: string) => openSqlite(join(config.DATA_DIR, name), { synchronous: config.SQLITE_SYNCHRONOUS });
  const dbs = {
    forms: sqlite('forms.db'),
    billing: sqlite('billing.db'),
    orgs: sqlite('orgs.db'),
    notifications: sqlite('notifications.db'),
    // Ingest writes uploads on the main thread; forms reads and deletes them here (WAL: one file, two connections).
    blobs: sqlite('blobs.db'),
  };
  for (const [name, db] of Object.entries(dbs)) storeHealth.register(`sqlite:${name}`, sqliteProbe(db));
  runSqliteMigrations(dbs.forms, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations);
  migrateSqliteBilling(dbs.billing);
  migrateSqliteOrgs(dbs.orgs);
  migrateSqliteNotifications(dbs.notifications);
  return dbs;
}

/** The four services on their stores; `mailer` is notifications' (closed after them). */
function createServices(common: Common, dbs: ReturnType<typeof openStores>, logger: Logger) {
  const { config, publicUrl } = data;
  const catalog = loadPlans(config.PLANS_FILE);
  const forms = createFormsService({
    ...common,
    logger: logger.child({ service: 'forms' }),
    stores: createSqliteFormsStores(dbs.forms),
    blobs: createSqliteBlobStore(dbs.blobs),
    fileLinkSecret: data.fileLinkSecret,
    catalog,
    privacy: createPrivacyKeys(data.privacyKey),
    erasureSweep: createEmbeddedErasureSweep({ bus: common.bus, dbs, logger }),
    ...(config.CLAMAV_ADDRESS
      ? { scanner: createClamavScanner({ address: config.CLAMAV_ADDRESS, maxBytes: config.CLAMAV_MAX_FILE_BYTES }) }
      : {}),
  });
  const billing = createBillingService({
    ...common,
    logger: logger.child({ service: 'billing' }),
    ...createSqliteBillingStores(dbs.billing),
    catalog,
    billingEnabled: config.STRIPE_SECRET_KEY !== undefined,
  });
  const orgs = createOrgsService({
    ...common,
    logger: logger.child({ service: 'orgs' }),
    ...createSqliteOrgsStores(dbs.orgs),
  });
  const mailer = createMailer({
    ...accountSettings(config),
    mailDir: join(config.DATA_DIR, 'mail'),
    logger,
    logLinks: true,
  });
  const notifications = createNotificationsService({
    ...common,
    logger: logger.child({ service: 'notifications' }),
    stores: createSqliteNotificationStores(dbs.notifications),
    mailer,
    compose: createEmailComposer({ fileLinks: createFileLinks(data.fileLinkSecret.current), clock: systemClock }),
    recipients: createSqliteRecipientStore(dbs.notifications),
    endpoints: createSqliteWebhookEndpointStore(dbs.notifications),
    allowPrivateTargets: config.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
    linkSecret: data.notificationsLinkSecret,
    // Without SMTP, mails are files in DATA_DIR/mail: an erasure deletes those of its submissions.
    ...(config.SMTP_URL ? {} : { keptMail: createMailFiles(join(config.DATA_DIR, 'mail')) }),
    publicUrl,
  });
  return { services: { forms, billing, orgs, notifications }, mailer };
}

/** Each service's app on a loopback port of its own, for the gateway's targets. */
async function serveApps(services: Record<ThreadService, { app: Parameters<typeof createHttpServer>[0] }>) {
  const servers: Server[] = [];
  const urls = {} as Record<ThreadService, string>;
  for (const [name, s] of Object.entries(services) as [
    ThreadService,
    { app: Parameters<typeof createHttpServer>[0] },
  ][]) {
    const server = createHttpServer(s.app);
    servers.push(server);
    urls[name] = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  }
  return { servers, urls };
}

async function boot(): Promise<ThreadRunning> {
  const { config } = data;
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'formgate' }).child({ thread: 'services' });
  // Under contention the answer's threads (main, log) run first; this one takes what they leave (ADR 84).
  try {
    const niceness = lowerThreadPriority(config.SERVICES_THREAD_NICENESS);
    if (niceness !== null) logger.debug({ niceness }, 'services thread priority lowered');
  } catch (err) {
    logger.warn({ err }, 'could not lower the services thread priority; it runs as the others do');
  }
  const tracing = await startTracing('formgate', config);
  // Node's own metrics are the main thread's (one process); this registry has the services' series only.
  const metrics = createMetrics({ defaults: false });
  const storeHealth = createStoreHealth({
    onChange: (store, ok, err) =>
      ok ? logger.info({ store }, 'store answers again') : logger.warn({ store, err }, 'store does not answer'),
  });
  // The handlers' stores are this thread's: it judges whether a failure was an outage (ADR 68).
  const portBus = createPortBus(data.busPort, { storeHealthy: (options) => storeHealth.healthy(options) });
  const bus = tracing ? traced(portBus, tracing, 'formgate-log') : portBus;
  const dbs = openStores(config, storeHealth);
  const identity = createIdentityCodec(data.identitySecret);
  const common: Common = { bus, clock: systemClock, ids: systemIds, identity, metrics, storeHealth, tracing };
  const { services, mailer } = createServices(common, dbs, logger);
  for (const s of Object.values(services)) await s.start();
  const { servers, urls } = await serveApps(services);
  return {
    ready: urls,
    async stop() {
      for (const server of servers) await drainServer(server);
      for (const s of Object.values(services).reverse()) await s.stop();
      await bus.close();
      await mailer.close();
      for (const db of Object.values(dbs)) db.close();
      await tracing?.stop();
    },
    healthy: (fresh: boolean) => storeHealth.healthy({ fresh }),
    metricsJson: () => metrics.registry.getMetricsAsJSON(),
  };
}

runThread(boot);
