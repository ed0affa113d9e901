import { fileURLToPath } from 'node:url';
import { createIdentityCodec, createLogger, exitOnBootFailure, serveUntilSignal } from '@formgate/kit';
import { operatorAuthenticator } from './authenticate.ts';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { ROUTES } from './routes.ts';

try {
  const config = loadGatewayConfig();
  const logger = createLogger({ level: config.LOG_LEVEL, name: 'gateway' });
  const gateway = createGateway({
    routes: ROUTES,
    targets: {
      forms: { kind: 'http', urls: config.FORMS_URL },
      ingest: { kind: 'http', urls: config.INGEST_URL },
      billing: { kind: 'http', urls: config.BILLING_URL },
    },
    authenticate: operatorAuthenticator(config.OPERATOR_TOKEN),
    signer: createIdentityCodec(config.IDENTITY_SECRET),
    logger,
    trustedOrigins: [config.PUBLIC_URL.replace(/\/$/, '')],
    webDir: fileURLToPath(new URL('../../web/dist', import.meta.url)),
  });
  await serveUntilSignal({
    name: 'gateway',
    handler: gateway.handle,
    port: config.PORT,
    host: config.HOST,
    logger,
    closables: [{ stop: async () => gateway.close() }],
  });
} catch (err) {
  exitOnBootFailure(err);
}
