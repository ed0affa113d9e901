import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, systemClock, systemIds } from '@formgate/kit';
import { createGridFsBlobStore } from '@formgate/store/mongo';
import { loadFormsConfig } from './config.ts';
import { createFormsService } from './create-service.ts';
import { createMongoFormsStore } from './store/mongo-forms-store.ts';

await runDistributed('forms', loadFormsConfig, async ({ config, logger, bus, mongo }) => {
  const service = createFormsService({
    store: await createMongoFormsStore(await mongo('forms')),
    bus,
    clock: systemClock,
    ids: systemIds,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
    // Ingest writes uploads to the shared file store; forms only reads them, through signed links.
    files: { blobs: createGridFsBlobStore(await mongo('files')), linkSecret: config.FILE_LINK_SECRET },
  });
  return { ...service, handler: service.app };
});
