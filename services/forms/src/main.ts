import { runDistributed } from '@formgate/host-distributed';
import { openFileStore } from '@formgate/host-distributed/file-store';
import { createIdentityCodec, createPrivacyKeys, loadPlans, systemClock, systemIds } from '@formgate/kit';
import { runMongoMigrations } from '@formgate/store/mongo';
import { loadFormsConfig } from './config.ts';
import { createFormsService } from './create-service.ts';
import { createClamavScanner } from './files/clamav-scanner.ts';
import { FORMS_MIGRATION_SCOPE } from './store/forms-stores.ts';
import { mongoFormsMigrations } from './store/mongo/migrations/index.ts';
import { createMongoFormsStores } from './store/mongo/stores.ts';

await runDistributed(
  'forms',
  loadFormsConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    // A bad PLANS_FILE stops the boot listing every problem.
    const catalog = loadPlans(config.PLANS_FILE);
    const { db } = await mongo('forms');
    if (!db) throw new Error('forms: the database connection is not open');
    // Before the stores are built: they assume the latest shape (ADR 72). Instances booting together take turns.
    const migrated = await runMongoMigrations(db, FORMS_MIGRATION_SCOPE, mongoFormsMigrations);
    if (migrated.applied.length > 0) logger.info(migrated, 'forms store migrated');
    const scanner = config.CLAMAV_ADDRESS
      ? createClamavScanner({ address: config.CLAMAV_ADDRESS, maxBytes: config.CLAMAV_MAX_FILE_BYTES })
      : undefined;
    // Not a reason to refuse to boot: files wait, pending, until the scanner answers.
    if (scanner && !(await scanner.ping())) logger.warn('malware scanner (CLAMAV_ADDRESS) not answering yet');
    const service = createFormsService({
      stores: await createMongoFormsStores(db),
      blobs: await openFileStore(config, { mongo, storeHealth }),
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
      privacy: createPrivacyKeys({ current: config.PRIVACY_KEY, previous: config.PRIVACY_KEY_PREVIOUS }),
      ...(scanner ? { scanner } : {}),
    });
    return { ...service, handler: service.app };
  },
);
