import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBillingService, createSqliteUsageStore } from '@formgate/billing';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { createFormsService, createSqliteFormsStore } from '@formgate/forms';
import { createIngestService } from '@formgate/ingest';
import {
  closeServer,
  createHttpServer,
  createIdentityCodec,
  createLogger,
  listen,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { createNotificationsService } from '@formgate/notifications';
import { createOrgsService, createSqliteOrgsStore } from '@formgate/orgs';
import { createFallbackBlobStore, createFsBlobStore, createSqliteBlobStore, openSqlite } from '@formgate/store';
import { startAuth } from './auth/start-auth.ts';
import type { EmbeddedConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { createMailer } from './mailer.ts';
import { ROUTES } from './routes.ts';
import { ensureSecretFile } from './secrets.ts';

const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * The embedded composition root: one process, the gateway and all five services, SQLite and the embedded log
 * under `dataDir`. Resolves once it listens; `stop()` drains consumers and closes every file.
 */
export async function startEmbedded(config: EmbeddedConfig) {
  const logger = createLogger({ level: config.logLevel, name: 'formgate' });
  // Listen first: with PORT=0 the public URL (cookies, links in emails) is known only then.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503, { 'retry-after': '1' }).end();
  };
  const server = createHttpServer((req, res) => handler(req, res));
  const port = await listen(server, config.port, config.host);
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const trustedOrigins = config.publicUrl ? [publicUrl] : [publicUrl, `http://127.0.0.1:${port}`];

  const sqlite = (name: string, exclusive = false) =>
    openSqlite(join(config.dataDir, name), { synchronous: config.sqliteSynchronous, exclusive });
  const busDb = sqlite('bus.db', true);
  const bus = createSqliteBus(busDb, { onError: (err, context) => logger.warn({ err, context }, 'event log') });
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  const common = { bus, clock: systemClock, ids: systemIds, identity: codec };
  const dbs = {
    forms: sqlite('forms.db'),
    billing: sqlite('billing.db'),
    orgs: sqlite('orgs.db'),
    blobs: sqlite('blobs.db'),
  };
  // Files uploaded before blobs moved into SQLite (ADR 11) stay under DATA_DIR/blobs and remain readable.
  const blobs = createFallbackBlobStore(
    createSqliteBlobStore(dbs.blobs),
    createFsBlobStore(join(config.dataDir, 'blobs')),
  );

  const ingest = createIngestService({
    ...common,
    logger: logger.child({ service: 'ingest' }),
    blobs,
    publicBaseUrl: publicUrl,
  });
  const forms = createFormsService({
    ...common,
    logger: logger.child({ service: 'forms' }),
    store: createSqliteFormsStore(dbs.forms),
  });
  const billing = createBillingService({
    ...common,
    logger: logger.child({ service: 'billing' }),
    store: createSqliteUsageStore(dbs.billing),
    plans: { submissionsPerMonth: () => config.submissionsPerMonth, emailsPerMonth: () => config.emailsPerMonth },
  });
  const orgs = createOrgsService({
    ...common,
    logger: logger.child({ service: 'orgs' }),
    store: createSqliteOrgsStore(dbs.orgs),
  });
  // Consumers first, ingest last: it starts answering once its views have replayed.
  const services = [forms, billing, orgs, createNotificationsService({ logger }), ingest];
  for (const s of services) await s.start();

  const mailer = createMailer({ ...config, mailDir: join(config.dataDir, 'mail'), logger, logLinks: true });
  const accounts = await startAuth({
    ...common,
    ...config,
    store: { kind: 'sqlite', path: join(config.dataDir, 'auth.db') },
    publicUrl,
    trustedOrigins,
    secret: ensureSecretFile(config.dataDir, 'auth-secret', config.authSecret),
    mailer,
    logger: logger.child({ component: 'accounts' }),
  });
  const gateway = createGateway({
    routes: ROUTES,
    targets: {
      ingest: { kind: 'in-process', app: ingest.app, handle: ingest.handle },
      forms: { kind: 'in-process', app: forms.app },
      billing: { kind: 'in-process', app: billing.app },
      orgs: { kind: 'in-process', app: orgs.app },
    },
    auth: accounts.auth,
    authenticate: accounts.authenticate,
    signer: codec,
    logger,
    trustedOrigins,
    trustedProxies: config.trustedProxies,
    lookupsPerMinute: config.lookupsPerMinute,
    webDir: WEB_DIST,
  });
  handler = gateway.handle;
  logger.info({ port, dataDir: config.dataDir }, `Formgate (embedded) listening on ${publicUrl}`);

  return {
    port,
    publicUrl,
    async stop() {
      await closeServer(server);
      gateway.close();
      await accounts.stop();
      for (const s of [...services].reverse()) await s.stop();
      await bus.close();
      await mailer.close();
      for (const db of [...Object.values(dbs), busDb]) db.close();
    },
  };
}
