import { runDistributed } from '@formgate/host-distributed';
import { createIdentityCodec, systemClock, systemIds } from '@formgate/kit';
import { createFileMailer, createSmtpMailer } from '@formgate/mail';
import { loadNotificationsConfig } from './config.ts';
import { createNotificationsService } from './create-service.ts';
import { createMongoDeliveryStore } from './deliveries/mongo-delivery-store.ts';
import { plainComposer } from './deliveries/plain-composer.ts';

await runDistributed('notifications', loadNotificationsConfig, async ({ config, logger, bus, mongo }) => {
  const mailer = config.SMTP_URL
    ? createSmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM, logger })
    : createFileMailer({ dir: config.MAIL_DIR, from: config.MAIL_FROM, logger });
  const service = createNotificationsService({
    store: await createMongoDeliveryStore(await mongo('notifications')),
    bus,
    mailer,
    clock: systemClock,
    ids: systemIds,
    logger,
    identity: createIdentityCodec(config.IDENTITY_SECRET),
    // TODO(merge): the React Email composer of `src/email`.
    compose: plainComposer,
    // TODO(merge): `src/recipients` (verified addresses). Until then nobody is verified, so nothing is sent.
    recipients: { listVerified: async () => [] },
    publicUrl: config.PUBLIC_URL,
  });
  return {
    ...service,
    handler: service.app,
    async stop() {
      await service.stop();
      await mailer.close();
    },
  };
});
