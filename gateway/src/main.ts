import { fileURLToPath } from 'node:url';
import { createKafkaBus } from '@formgate/bus';
import {
  createIdentityCodec,
  createLogger,
  exitOnBootFailure,
  serveUntilSignal,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { connectMongo } from '@formgate/store';
import type { Db } from 'mongodb';
import { startAuth } from './auth/start-auth.ts';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { createMailer } from './mailer.ts';
import { ROUTES } from './routes.ts';

try {
  const config = loadGatewayConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'gateway' }).child({ instance: config.INSTANCE_ID });
  const bus = createKafkaBus({
    brokers: config.KAFKA_BROKERS,
    clientId: `gateway-${config.INSTANCE_ID}`,
    onError: (err, context) => logger.warn({ err, context }, 'kafka'),
  });
  const conn = await connectMongo(config.MONGO_URL, `${config.MONGO_DB_PREFIX}_accounts`);
  const mailer = createMailer({ ...config, mailDir: config.MAIL_DIR, logger, logLinks: false });
  const accounts = await startAuth({
    ...config,
    store: { kind: 'mongo', db: conn.db as unknown as Db },
    secret: config.AUTH_SECRET,
    trustedOrigins: [config.publicUrl],
    mailer,
    bus,
    clock: systemClock,
    ids: systemIds,
    logger: logger.child({ component: 'accounts' }),
  });
  const gateway = createGateway({
    routes: ROUTES,
    targets: {
      forms: { kind: 'http', urls: config.FORMS_URL },
      ingest: { kind: 'http', urls: config.INGEST_URL },
      billing: { kind: 'http', urls: config.BILLING_URL },
      orgs: { kind: 'http', urls: config.ORGS_URL },
    },
    auth: accounts.auth,
    authenticate: accounts.authenticate,
    signer: createIdentityCodec(config.IDENTITY_SECRET),
    logger,
    trustedOrigins: [config.publicUrl],
    trustedProxies: config.trustedProxies,
    lookupsPerMinute: config.lookupsPerMinute,
    webDir: fileURLToPath(new URL('../../web/dist', import.meta.url)),
  });
  await serveUntilSignal({
    name: 'gateway',
    handler: gateway.handle,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [
      { stop: async () => gateway.close() },
      accounts,
      { stop: () => bus.close() },
      { stop: () => mailer.close() },
      { stop: () => conn.close() },
    ],
  });
} catch (err) {
  exitOnBootFailure(err);
}
