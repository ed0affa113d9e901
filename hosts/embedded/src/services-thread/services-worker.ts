/**
 * The services thread of embedded mode (ADR 77): forms, billing, orgs and notifications, each with its SQLite file
 * (this thread is their only writer) and its HTTP app on a loopback port the gateway forwards to. The event log is
 * the main thread's, reached over `workerData.busPort`. Started by `startServicesThread`; never run on its own.
 */
import type { Server } from 'node:http';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { accountSettings, createMailer } from '@formgate/accounts';
import { createBillingService, createSqliteBillingStores, migrateSqliteBilling } from '@formgate/billing';
import { traced } from '@formgate/bus';
import { createPortBus } from '@formgate/bus/port';
import {
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
  createStoreHealth,
  drainServer,
  listen,
  loadPlans,
  startTracing,
  systemClock,
  systemIds,
} from '@formgate/kit';
import {
  createEmailComposer,
  createNotificationsService,
  createSqliteNotificationStores,
  createSqliteRecipientStore,
  createSqliteWebhookEndpointStore,
  migrateSqliteNotifications,
} from '@formgate/notifications';
import { createOrgsService, createSqliteOrgsStores, migrateSqliteOrgs } from '@formgate/orgs';
import { createSqliteBlobStore, openSqlite, runSqliteMigrations } from '@formgate/store/sqlite';
import type { FromServices, ServicesThreadData, ThreadService, ToServices } from './protocol.ts';

const control = parentPort;
if (!control) throw new Error('services-worker.ts runs as a worker thread of the embedded host');
const data = workerData as ServicesThreadData;
const send = (message: FromServices) => control.postMessage(message);

async function boot() {
  const { config, publicUrl } = data;
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'formgate' });
  const tracing = await startTracing('formgate', config);
  const catalog = loadPlans(config.PLANS_FILE);
  // Node's own metrics are the main thread's (one process); this registry has the services' series only.
  const metrics = createMetrics({ defaults: false });
  const portBus = createPortBus(data.busPort);
  const bus = tracing ? traced(portBus, tracing, 'formgate-log') : portBus;
  const storeHealth = createStoreHealth({
    onChange: (store, ok, err) =>
      ok ? logger.info({ store }, 'store answers again') : logger.warn({ store, err }, 'store does not answer'),
  });
  const sqlite = (name: string) => openSqlite(join(config.DATA_DIR, name), { synchronous: config.SQLITE_SYNCHRONOUS });
  const dbs = {
    forms: sqlite('forms.db'),
    billing: sqlite('billing.db'),
    orgs: sqlite('orgs.db'),
    notifications: sqlite('notifications.db'),
    // Ingest writes uploads on the main thread; forms reads and deletes them here (WAL: one file, two connections).
    blobs: sqlite('blobs.db'),
  };
  for (const [name, db] of Object.entries(dbs)) {
    const read = db.prepare('SELECT count(*) FROM sqlite_schema');
    storeHealth.register(`sqlite:${name}`, () => void read.get());
  }
  const common = {
    bus,
    clock: systemClock,
    ids: systemIds,
    identity: createIdentityCodec(data.identitySecret),
    metrics,
    storeHealth,
    tracing,
  };
  // Every schema before its adapters (ADR 72).
  runSqliteMigrations(dbs.forms, FORMS_MIGRATION_SCOPE, sqliteFormsMigrations);
  migrateSqliteBilling(dbs.billing);
  migrateSqliteOrgs(dbs.orgs);
  migrateSqliteNotifications(dbs.notifications);
  const forms = createFormsService({
    ...common,
    logger: logger.child({ service: 'forms' }),
    stores: createSqliteFormsStores(dbs.forms),
    blobs: createSqliteBlobStore(dbs.blobs),
    fileLinkSecret: data.fileLinkSecret,
    catalog,
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
    publicUrl,
  });
  const services = { forms, billing, orgs, notifications };
  for (const s of Object.values(services)) await s.start();
  const servers = new Map<ThreadService, Server>();
  const urls = {} as Record<ThreadService, string>;
  for (const [name, s] of Object.entries(services) as [ThreadService, (typeof services)[ThreadService]][]) {
    const server = createHttpServer(s.app);
    servers.set(name, server);
    urls[name] = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}`;
  }

  async function stop() {
    for (const server of servers.values()) await drainServer(server);
    for (const s of Object.values(services).reverse()) await s.stop();
    await bus.close();
    await mailer.close();
    for (const db of Object.values(dbs)) db.close();
    await tracing?.stop();
  }
  return { urls, stop, storeHealth, metrics };
}

let booted: Awaited<ReturnType<typeof boot>> | undefined;
control.on('message', (message: ToServices) => {
  switch (message.type) {
    case 'health':
      void (booted?.storeHealth.healthy({ fresh: message.fresh }) ?? Promise.resolve(false)).then(
        (ok) => send({ type: 'health', id: message.id, ok }),
        () => send({ type: 'health', id: message.id, ok: false }),
      );
      return;
    case 'metrics':
      void (booted?.metrics.registry.getMetricsAsJSON() ?? Promise.resolve([])).then((json) =>
        send({ type: 'metrics', id: message.id, json }),
      );
      return;
    case 'stop':
      void (booted?.stop() ?? Promise.resolve()).then(
        () => {
          send({ type: 'stopped' });
          control.close();
        },
        (err: Error) => send({ type: 'failed', message: err.message, stack: err.stack }),
      );
      return;
  }
});

try {
  booted = await boot();
  send({ type: 'ready', urls: booted.urls });
} catch (err) {
  const e = err as Error;
  send({ type: 'failed', message: e.message, stack: e.stack });
}
