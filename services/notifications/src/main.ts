import { runDistributed } from '@formgate/host-distributed';
import { createFileLinks, createIdentityCodec, systemClock, systemIds } from '@formgate/kit';
import { createFileMailer, createSmtpMailer } from '@formgate/mail';
import { loadNotificationsConfig } from './config.ts';
import { createNotificationsService } from './create-service.ts';
import { DELIVERY_TUNING } from './deliveries/tuning.ts';
import { createEmailComposer } from './email/composer.ts';
import {
  createMongoNotificationStores,
  createMongoRecipientStore,
  createMongoWebhookEndpointStore,
  migrateMongoNotifications,
} from './store/mongo/index.ts';

await runDistributed(
  'notifications',
  loadNotificationsConfig,
  async ({ config, logger, bus, metrics, mongo, storeHealth, tracing }) => {
    const mailer = config.SMTP_URL
      ? createSmtpMailer({
          url: config.SMTP_URL,
          from: config.MAIL_FROM,
          logger,
          maxConnections: config.SMTP_MAX_CONNECTIONS,
          maxMessages: config.SMTP_MAX_MESSAGES,
        })
      : createFileMailer({ dir: config.MAIL_DIR, from: config.MAIL_FROM, logger });
    const db = await mongo('notifications');
    if (!db.db) throw new Error('the notifications database is not open');
    await migrateMongoNotifications(db.db);
    const service = createNotificationsService({
      stores: createMongoNotificationStores(db, { successGatherMs: DELIVERY_TUNING.successGatherMs }),
      bus,
      mailer,
      clock: systemClock,
      ids: systemIds,
      logger,
      storeHealth,
      metrics,
      tracing,
      identity: createIdentityCodec({ current: config.IDENTITY_SECRET, previous: config.IDENTITY_SECRET_PREVIOUS }),
      compose: createEmailComposer({ fileLinks: createFileLinks(config.FILE_LINK_SECRET), clock: systemClock }),
      recipients: createMongoRecipientStore(db),
      endpoints: createMongoWebhookEndpointStore(db),
      allowPrivateTargets: config.WEBHOOKS_ALLOW_PRIVATE_TARGETS,
      linkSecret: { current: config.NOTIFICATIONS_LINK_SECRET, previous: config.NOTIFICATIONS_LINK_SECRET_PREVIOUS },
      publicUrl: config.PUBLIC_URL,
      attemptLeaseMs: config.NOTIFICATIONS_ATTEMPT_LEASE_MS,
    });
    return {
      ...service,
      handler: service.app,
      async stop() {
        await service.stop();
        await mailer.close();
      },
    };
  },
);
