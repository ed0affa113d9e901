import { randomUUID } from 'node:crypto';
import { runDistributed } from '@formgate/host-distributed';
import { openFileStore } from '@formgate/host-distributed/file-store';
import { loadPlans, systemClock, systemIds } from '@formgate/kit';
import { loadIngestConfig } from './config.ts';
import { createIngestService } from './create-service.ts';
import { altchaDifficulty, captchaVerifyConfig } from './spam/captcha.ts';

await runDistributed(
  'ingest',
  loadIngestConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    // Ingest owns no database; uploaded files go to the shared file store (GridFS or S3: FILE_STORE).
    const blobs = await openFileStore(config, { mongo, storeHealth });
    const service = createIngestService({
      bus,
      blobs,
      // With S3, browsers PUT direct uploads to the bucket (presigned URLs); with GridFS, through ingest.
      ...(blobs.presignPut ? { directUploads: { presignPut: blobs.presignPut } } : {}),
      // A bad PLANS_FILE stops the boot listing every problem.
      catalog: loadPlans(config.PLANS_FILE),
      clock: systemClock,
      ids: systemIds,
      logger,
      metrics,
      tracing,
      publicBaseUrl: config.PUBLIC_URL.replace(/\/$/, ''),
      secret: config.INGEST_SECRET,
      previousSecret: config.INGEST_SECRET_PREVIOUS,
      captcha: captchaVerifyConfig(config),
      altchaDifficulty: altchaDifficulty(config),
      trustedProxies: config.TRUSTED_PROXIES,
      // Unique per process: a restarted instance counts its predecessor's reports as another instance's.
      abuse: { instance: `${config.INSTANCE_ID}.${randomUUID().slice(0, 8)}`, follow: true },
    });
    return {
      ...service,
      // The raw handler for the public endpoint; the app for `/healthz` and the gateway's `/internal/settled`.
      handler: (req, res) =>
        req.url === '/healthz' || req.url?.startsWith('/internal/') ? service.app(req, res) : service.handle(req, res),
    };
  },
);
