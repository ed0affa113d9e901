import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, systemClock } from '@formgate/kit';
import { loadOrgsConfig } from './config.ts';
import { createOrgsService } from './create-service.ts';
import { createMongoOrgsStore } from './store/mongo-orgs-store.ts';

await runDistributed('orgs', loadOrgsConfig, async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
  const service = createOrgsService({
    store: await createMongoOrgsStore(await mongo('orgs')),
    bus,
    clock: systemClock,
    logger,
    storeHealth,
    metrics,
    tracing,
    identity: createIdentityCodec({ current: config.IDENTITY_SECRET, previous: config.IDENTITY_SECRET_PREVIOUS }),
  });
  return { ...service, handler: service.app };
});
