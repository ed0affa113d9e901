import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, loadPlans, systemClock } from '@formgate/kit';
import { loadBillingConfig } from './config.ts';
import { createBillingService } from './create-service.ts';
import { createMongoHeldStore } from './store/mongo-held-store.ts';
import { createMongoStorageStore } from './store/mongo-storage-store.ts';
import { createMongoSubscriptionStore } from './store/mongo-subscription-store.ts';
import { createMongoUsageStore } from './store/mongo-usage-store.ts';

await runDistributed(
  'billing',
  loadBillingConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    const catalog = loadPlans(config.PLANS_FILE);
    const db = await mongo('billing');
    const service = createBillingService({
      store: await createMongoUsageStore(db),
      emails: await createMongoUsageStore(db, { meter: 'emails' }),
      held: await createMongoHeldStore(db),
      deferredEmails: await createMongoHeldStore(db, { ledger: 'emails' }),
      subscriptions: await createMongoSubscriptionStore(db),
      storage: await createMongoStorageStore(db),
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
