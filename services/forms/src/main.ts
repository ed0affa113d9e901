import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, loadPlans, systemClock, systemIds } from '@formgate/kit';
import { createGridFsBlobStore } from '@formgate/store/mongo';
import { loadFormsConfig } from './config.ts';
import { createFormsService } from './create-service.ts';
import { createMongoFormsStore } from './store/mongo-forms-store.ts';

await runDistributed(
  'forms',
  loadFormsConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    // A bad PLANS_FILE stops the boot listing every problem.
    const catalog = loadPlans(config.PLANS_FILE);
    const service = createFormsService({
      store: await createMongoFormsStore(await mongo('forms')),
      blobs: createGridFsBlobStore(await mongo('files')),
      bus,
      clock: systemClock,
      ids: systemIds,
      logger,
      storeHealth,
      metrics,
      tracing,
      identity: createIdentityCodec({ current: config.IDENTITY_SECRET, previous: config.IDENTITY_SECRET_PREVIOUS }),
      fileLinkSecret: { current: config.FILE_LINK_SECRET, previous: config.FILE_LINK_SECRET_PREVIOUS },
      catalog,
    });
    return { ...service, handler: service.app };
  },
);
