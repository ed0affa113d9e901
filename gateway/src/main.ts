import { fileURLToPath } from 'node:url';
import { accountSettings, createAccounts, createMailer } from '@formgate/accounts';
import { createMongoAccountsStore } from '@formgate/accounts/mongo';
import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, loadPlans, systemClock, systemIds } from '@formgate/kit';
import type { Db } from 'mongodb';
import { loadGatewayConfig } from './config.ts';
import { createGateway } from './create-gateway.ts';
import { siteConfigFrom } from './site-config.ts';
import { formsCaller, startSiteProvisioning } from './site-forms.ts';

await runDistributed(
  'gateway',
  loadGatewayConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    // `/api/v1/site` shows the default plan's limits; a bad PLANS_FILE stops the boot listing every problem (before
    // waiting for any database).
    const plans = loadPlans(config.PLANS_FILE);
    const settings = accountSettings(config);
    const conn = await mongo('accounts');
    const mailer = createMailer({ ...settings, mailDir: config.MAIL_DIR, logger, logLinks: false });
    const accounts = createAccounts({
      ...settings,
      store: createMongoAccountsStore(conn.db as unknown as Db),
      publicUrl: config.PUBLIC_URL,
      secret: config.AUTH_SECRET,
      previousSecret: config.AUTH_SECRET_PREVIOUS,
      trustedOrigins: [config.PUBLIC_URL],
      mailer,
      bus,
      clock: systemClock,
      ids: systemIds,
      logger: logger.child({ component: 'accounts' }),
      storeHealth,
    });
    const signer = createIdentityCodec({ current: config.IDENTITY_SECRET, previous: config.IDENTITY_SECRET_PREVIOUS });
    const formsTarget = { kind: 'http', urls: config.FORMS_URL } as const;
    const { submissionsPerMonth, emailsPerMonth } = plans.resolve(undefined).limits;
    const limits = { submissionsPerMonth, emailsPerMonth };
    let provisioning: ReturnType<typeof startSiteProvisioning> | undefined;
    const gateway = createGateway({
      targets: {
        forms: formsTarget,
        ingest: { kind: 'http', urls: config.INGEST_URL, peers: config.INGEST_PEERS_URL },
        billing: { kind: 'http', urls: config.BILLING_URL },
        orgs: { kind: 'http', urls: config.ORGS_URL },
        ...(config.NOTIFICATIONS_URL
          ? { notifications: { kind: 'http', urls: config.NOTIFICATIONS_URL } as const }
          : {}),
      },
      accounts,
      signer,
      logger,
      storeHealth,
      trustedOrigins: [config.PUBLIC_URL],
      trustedProxies: settings.trustedProxies,
      publicUrl: config.PUBLIC_URL,
      ...(config.OPERATOR_TOKEN
        ? {
            operator: {
              token: config.OPERATOR_TOKEN,
              previousToken: config.OPERATOR_TOKEN_PREVIOUS,
              bus,
              site: accounts.site,
              organizations: accounts.organizations,
              plans,
            },
          }
        : {}),
      webDir: config.WEB_DIR ?? fileURLToPath(new URL('../../web/dist', import.meta.url)),
      apiReferenceBundle: config.API_REFERENCE_BUNDLE,
      site: () => siteConfigFrom(config, limits, provisioning?.keys()),
      upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
      ingestTimeoutMs: config.INGEST_TIMEOUT_MS,
      metrics,
      tracing,
    });
    return {
      handler: gateway.handle,
      async start() {
        await accounts.start();
        // In the background: the forms service may come up after the gateway.
        provisioning = startSiteProvisioning({ site: accounts.site, signer, call: formsCaller(formsTarget), logger });
      },
      async stop() {
        provisioning?.stop();
        gateway.close();
        await accounts.stop();
        await mailer.close();
      },
    };
  },
);
