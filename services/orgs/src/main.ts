import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, systemClock } from '@formgate/kit';
import { loadOrgsConfig } from './config.ts';
import { createOrgsService } from './create-service.ts';
import { createMongoOrgsStores, migrateMongoOrgs } from './store/mongo/index.ts';

await runDistributed('orgs', loadOrgsConfig, async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
  const db = (await mongo('orgs')).db;
  if (!db) throw new Error('orgs: the database connection is not open');
  await migrateMongoOrgs(db);
  const service = createOrgsService({
    ...createMongoOrgsStores(db),
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
