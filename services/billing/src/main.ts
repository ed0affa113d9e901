import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, systemClock } from '@formgate/kit';
import { loadBillingConfig } from './config.ts';
import { createBillingService } from './create-service.ts';
import { createMongoUsageStore } from './store/mongo-usage-store.ts';

await runDistributed('billing', loadBillingConfig, async ({ config, logger, bus, mongo }) => {
  const db = await mongo('billing');
  const service = createBillingService({
    store: await createMongoUsageStore(db),
    emails: await createMongoUsageStore(db, { meter: 'emails' }),
    bus,
    clock: systemClock,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
    plans: {
      submissionsPerMonth: () => config.BILLING_SUBMISSIONS_PER_MONTH,
      emailsPerMonth: () => config.BILLING_EMAILS_PER_MONTH,
    },
  });
  return { ...service, handler: service.app };
});
