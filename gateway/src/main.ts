import { fileURLToPath } from 'node:url';
import { createIdentityCodec, runDistributed, systemClock, systemIds } from '@formgate/kit';
import type { Db } from 'mongodb';
import { startAuth } from './auth/start-auth.ts';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { createMailer } from './mailer.ts';
import { ROUTES } from './routes.ts';

await runDistributed('gateway', loadGatewayConfig, async ({ config, logger, bus, mongo }) => {
  const conn = await mongo('accounts');
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
  return {
    handler: gateway.handle,
    async stop() {
      gateway.close();
      await accounts.stop();
      await mailer.close();
    },
  };
});
