import { type MongoDb, type MongoMigration, runMongoMigrations } from '@formgate/store/mongo';
import { deliveries } from './0001-deliveries.ts';
import { webhookEndpoints } from './0002-webhook-endpoints.ts';
import { notificationEmails } from './0003-notification-emails.ts';
import { submissionSettlements } from './0004-submission-settlements.ts';
import { goneSubmissions } from './0005-gone-submissions.ts';

/** The `notifications` scope's indexes on MongoDB, in order (ADR 72). */
export const MONGO_MIGRATIONS: readonly MongoMigration[] = [
  deliveries,
  webhookEndpoints,
  notificationEmails,
  submissionSettlements,
  goneSubmissions,
];

/** Brings the notifications collections of `db` to the latest shape; run by the composition root before any adapter. */
export const migrateMongoNotifications = (db: MongoDb) => runMongoMigrations(db, 'notifications', MONGO_MIGRATIONS);
