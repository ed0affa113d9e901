import type { MongoConnection } from '@formgate/store/mongo';
import type { NotificationStores } from '../index.ts';
import { createMongoDeferredEmails } from './deferred-emails.ts';
import type { DeliveriesOptions } from './deliveries-schema.ts';
import { createMongoDeliveryLog } from './delivery-log.ts';
import { createMongoGoneSubmissions } from './gone-submissions.ts';
import { createMongoNotificationViews } from './notification-views.ts';
import { createMongoOutcomeOutbox } from './outcome-outbox.ts';
import { createMongoSubmissionSettlements } from './submission-settlements.ts';

export { MONGO_MIGRATIONS, migrateMongoNotifications } from './migrations/index.ts';
export { createMongoRecipientStore } from './recipients.ts';
export { createMongoWebhookEndpointStore, REVISION_KEPT_MS } from './webhook-endpoints.ts';

/**
 * The delivery pipeline's stores on one MongoDB database, migrated (`migrateMongoNotifications`) before; `options`
 * tune their group commit (the service passes `DELIVERY_TUNING`'s).
 */
export function createMongoNotificationStores(
  conn: MongoConnection,
  options: DeliveriesOptions = {},
): NotificationStores {
  const db = conn.db;
  if (!db) throw new Error('createMongoNotificationStores: the connection is not open');
  return {
    log: createMongoDeliveryLog(db, options),
    views: createMongoNotificationViews(db),
    outbox: createMongoOutcomeOutbox(db),
    deferred: createMongoDeferredEmails(db),
    settlements: createMongoSubmissionSettlements(db),
    gone: createMongoGoneSubmissions(db),
  };
}
