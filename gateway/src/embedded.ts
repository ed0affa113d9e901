import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBillingService, createSqliteUsageStore } from '@formgate/billing';
import { createSqliteBus } from '@formgate/bus';
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
import { createOrgsService } from '@formgate/orgs';
import { createFsBlobStore, openSqlite } from '@formgate/store';
import { operatorAuthenticator } from './authenticate.ts';
import type { EmbeddedConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { ensureOperatorToken } from './operator-token.ts';
import { ROUTES } from './routes.ts';

const WEB_DIST = fileURLToPath(new URL('../../web/dist', import.meta.url));

/**
 * The embedded composition root: one process, the gateway and all five services, SQLite and the embedded log
 * under `dataDir`. Resolves once it listens; `stop()` drains consumers and closes every file.
 */
export async function startEmbedded(config: EmbeddedConfig) {
  const logger = createLogger({ level: config.logLevel, name: 'formgate' });
  const sqlite = (name: string, exclusive = false) =>
    openSqlite(join(config.dataDir, name), { synchronous: config.sqliteSynchronous, exclusive });
  const busDb = sqlite('bus.db', true);
  const bus = createSqliteBus(busDb, { onError: (err, context) => logger.warn({ err, context }, 'event log') });
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  const operatorToken = ensureOperatorToken(config.dataDir, config.operatorToken);
  const common = { bus, clock: systemClock, ids: systemIds, identity: codec };
  const formsDb = sqlite('forms.db');
  const billingDb = sqlite('billing.db');

  const ingest = createIngestService({
    ...common,
    logger: logger.child({ service: 'ingest' }),
    blobs: createFsBlobStore(join(config.dataDir, 'blobs')),
    publicBaseUrl: config.publicUrl,
  });
  const forms = createFormsService({
    ...common,
    logger: logger.child({ service: 'forms' }),
    store: createSqliteFormsStore(formsDb),
  });
  const billing = createBillingService({
    ...common,
    logger: logger.child({ service: 'billing' }),
    store: createSqliteUsageStore(billingDb),
    plans: { submissionsPerMonth: () => config.submissionsPerMonth },
  });
  // Consumers first, ingest last: it starts answering once its views have replayed.
  const services = [forms, billing, createNotificationsService({ logger }), createOrgsService({ logger }), ingest];
  for (const s of services) await s.start();

  const gateway = createGateway({
    routes: ROUTES,
    targets: {
      ingest: { kind: 'in-process', app: ingest.app, handle: ingest.handle },
      forms: { kind: 'in-process', app: forms.app },
      billing: { kind: 'in-process', app: billing.app },
    },
    authenticate: operatorAuthenticator(operatorToken),
    signer: codec,
    logger,
    trustedOrigins: [config.publicUrl],
    webDir: WEB_DIST,
  });
  const server = createHttpServer(gateway.handle);
  const port = await listen(server, config.port, config.host);
  logger.info({ port, dataDir: config.dataDir }, `Formgate (embedded) listening on http://localhost:${port}`);

  return {
    port,
    operatorToken,
    async stop() {
      await closeServer(server);
      gateway.close();
      for (const s of [...services].reverse()) await s.stop();
      await bus.close();
      for (const db of [formsDb, billingDb, busDb]) db.close();
    },
  };
}
