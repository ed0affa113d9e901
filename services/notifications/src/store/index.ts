import type { DeferredEmails } from './deferred-emails.ts';
import type { DeliveryLog } from './delivery-log.ts';
import type { GoneSubmissions } from './gone-submissions.ts';
import type { NotificationViews } from './notification-views.ts';
import type { OutcomeOutbox } from './outcome-outbox.ts';
import type { SubmissionSettlements } from './submission-settlements.ts';

export type { DeferredEmails } from './deferred-emails.ts';
export type { DeliveryLog } from './delivery-log.ts';
export type { GoneSubmission, GoneSubmissions } from './gone-submissions.ts';
export type { NotificationViews } from './notification-views.ts';
export type { OutcomeOutbox } from './outcome-outbox.ts';
export { nextMailCounter, type RecipientStore, type VerifiedRecipients } from './recipients.ts';
export * from './records.ts';
export type { PlannedSubmission, SubmissionSettlements } from './submission-settlements.ts';
export { definedChanges, disablingKey, type WebhookEndpointStore, withDisabling } from './webhook-endpoints.ts';

/** The delivery pipeline's stores, built over one database by `createSqliteNotificationStores` / the Mongo one. */
export interface NotificationStores {
  log: DeliveryLog;
  views: NotificationViews;
  outbox: OutcomeOutbox;
  deferred: DeferredEmails;
  /** The no-store forms' submissions being settled (issue 31). */
  settlements: SubmissionSettlements;
  /** The tombstones of deleted submissions, which consumers behind skip. */
  gone: GoneSubmissions;
}
