import type { SubscriptionChanged } from '@formgate/contracts';

/**
 * What a usage store meters: submissions (one entry per submission id) or notification emails sent (one entry per
 * delivery id). Each meter is a separate ledger; purging an organization purges it from every meter.
 */
export type Meter = 'submissions' | 'emails';

/** One billable thing: a submission, or an email delivery. */
export interface UsageEntry {
  /** The submission's id, or the email delivery's id: counted once whatever the redeliveries. */
  id: string;
  orgId: string;
  /** Calendar month `YYYY-MM` (UTC) it happened in. */
  period: string;
}

export interface UsageCount {
  orgId: string;
  period: string;
  used: number;
}

/** Which held ledger: submissions accepted over quota, or notification emails deferred over quota. */
export type HeldLedger = 'submissions' | 'emails';

/**
 * A submission accepted over quota: stored and counted nowhere until released. The same ledger, on its own table,
 * keeps the notification emails deferred over quota (the delivery's id; released when its outcome arrives).
 */
export interface HeldEntry {
  /** The submission's id (the deferred emails' ledger: the delivery's id). */
  id: string;
  orgId: string;
}

/** The files of one submission, as `submission.received` listed them. */
export interface StoredFiles {
  /** The submission's id. */
  id: string;
  orgId: string;
  formId: string;
  /** The sum of its files' sizes. */
  bytes: number;
}

/** A submission whose files are gone (deleted with it). */
export interface FreedSubmission {
  id: string;
  orgId: string;
}

/** An organization's subscription as the last applied `subscription.changed` left it. */
export type SubscriptionState = Omit<SubscriptionChanged['data'], 'orgId'>;

/** One `subscription.changed` to apply: its event id, and `changedAt` as `Date#toISOString()` writes it. */
export interface SubscriptionChange extends SubscriptionState {
  eventId: string;
  orgId: string;
}
