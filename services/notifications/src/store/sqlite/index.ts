import type { SqliteDb } from '@formgate/store/sqlite';
import type { NotificationStores } from '../index.ts';
import { createSqliteDeferredEmails } from './deferred-emails.ts';
import { createSqliteWrites } from './deliveries-schema.ts';
import { createSqliteDeliveryLog } from './delivery-log.ts';
import { createSqliteGoneSubmissions } from './gone-submissions.ts';
import { createSqliteNotificationViews } from './notification-views.ts';
import { createSqliteOutcomeOutbox } from './outcome-outbox.ts';
import { createSqliteSubmissionSettlements } from './submission-settlements.ts';

export { migrateSqliteNotifications, SQLITE_MIGRATIONS } from './migrations/index.ts';
export { createSqliteRecipientStore } from './recipients.ts';
export { createSqliteWebhookEndpointStore } from './webhook-endpoints.ts';

/** The delivery pipeline's stores on one SQLite file, migrated (`migrateSqliteNotifications`), one group commit. */
export function createSqliteNotificationStores(db: SqliteDb): NotificationStores {
  const write = createSqliteWrites(db);
  return {
    log: createSqliteDeliveryLog(db, write),
    views: createSqliteNotificationViews(db),
    outbox: createSqliteOutcomeOutbox(db, write),
    deferred: createSqliteDeferredEmails(db, write),
    settlements: createSqliteSubmissionSettlements(db, write),
    gone: createSqliteGoneSubmissions(db, write),
  };
}
