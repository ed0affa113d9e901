import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, loadPlans, systemClock } from '@formgate/kit';
import { loadBillingConfig } from './config.ts';
import { createBillingService } from './create-service.ts';
import { createMongoBillingStores, migrateMongoBilling } from './store/mongo/index.ts';

await runDistributed(
  'billing',
  loadBillingConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    const catalog = loadPlans(config.PLANS_FILE);
    const db = (await mongo('billing')).db;
    if (!db) throw new Error('billing: the database connection is not open');
    await migrateMongoBilling(db);
    const service = createBillingService({
      ...createMongoBillingStores(db),
      catalog,
      billingEnabled: config.BILLING_ENABLED,
      bus,
      clock: systemClock,
      logger,
      storeHealth,
      metrics,
      tracing,
      identity: createIdentityCodec({ current: config.IDENTITY_SECRET, previous: config.IDENTITY_SECRET_PREVIOUS }),
    });
    return { ...service, handler: service.app };
  },
);
