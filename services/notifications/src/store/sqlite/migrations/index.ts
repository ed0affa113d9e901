import { runSqliteMigrations, type SqliteDb, type SqliteMigration } from '@formgate/store/sqlite';
import { deliveries } from './0001-deliveries.ts';
import { webhookEndpoints } from './0002-webhook-endpoints.ts';
import { notificationEmails } from './0003-notification-emails.ts';
import { submissionSettlements } from './0004-submission-settlements.ts';
import { goneSubmissions } from './0005-gone-submissions.ts';

/** The `notifications` scope's schema on SQLite, in order (ADR 72). */
export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  deliveries,
  webhookEndpoints,
  notificationEmails,
  submissionSettlements,
  goneSubmissions,
];

/** Brings the notifications tables of `db` to the latest shape; run by the composition root before any adapter. */
export const migrateSqliteNotifications = (db: SqliteDb) => runSqliteMigrations(db, 'notifications', SQLITE_MIGRATIONS);
