import type {
  DeliveryChannel,
  DeliveryStatus,
  FormNotifications,
  SubmissionReceived,
  WebhookEventType,
  WebhookKind,
} from '@formgate/contracts';

/**
 * The events webhook deliveries send: those an endpoint subscribes to, and `submission.erased`, sent (never
 * subscribed to) to every endpoint that was sent the submission when an erasure deleted it.
 */
export type SentWebhookEventType = WebhookEventType | 'submission.erased';

/**
 * What replaces what may hold personal data in the delivery log once the submission was erased
 * (`DeliveryLog.redactSubmission`): email targets and response texts.
 */
export const ERASED = 'erased';

/** Every read the API makes names the organization it reads for: another organization's record is not found. */
export interface OrgScope {
  orgId: string;
}

/** What notifications keeps of a form (from `forms.form`): enough to decide who hears about a submission. */
export interface FormView {
  id: string;
  orgId: string;
  name: string;
  slug: string;
  notifications: FormNotifications;
  /**
   * false: a no-store form (`settings.storeContent`, issue 31): once notifications are done with a submission of it,
   * they drop its content and tell forms (`submission.settled`). Absent on views written before: content is stored.
   */
  storeContent?: boolean;
  version: number;
}

/** The submission as `submission.received` carried it: kept so that retries and resends can compose again. */
export type StoredSubmission = SubmissionReceived['data'];

/** What a webhook delivery tells: kept on the delivery so that retries and resends build the same event. */
export interface WebhookEventRef {
  type: SentWebhookEventType;
  /** When it happened: the body's `timestamp`. */
  occurredAt: string;
  /** When the submission was received (a deleted submission's `createdAt`: its copy is gone by then). */
  receivedAt: string;
  /** `submission.erased` only: the erasure's id. */
  erasureId?: string;
}

/** One effect: a message to one target for one purpose of one submission. */
export interface Delivery {
  /** Deterministic for a planned delivery (submission, channel, purpose, target); new for a resend. */
  id: string;
  orgId: string;
  formId: string;
  submissionId: string;
  channel: DeliveryChannel;
  /** `notification` / `autoresponse` for email; the endpoint kind for webhooks. */
  purpose: string;
  /**
   * The address (lower case), or the webhook endpoint's URL. An email delivery's address is `ERASED` once its
   * submission was erased (`DeliveryLog.redactSubmission`): it is then never sent again (its copy is gone).
   */
  target: string;
  targetId: string | null;
  /** `deferred`: an email held back by the organization's emails quota (`DeferredEmails`), no attempt in flight. */
  status: DeliveryStatus;
  /** Attempts whose outcome is recorded. */
  attempts: number;
  /** The highest attempt number claimed so far (≥ `attempts`: one more while an attempt is in flight). */
  lastClaimed: number;
  /**
   * The last attempt's outcome; `text` is `ERASED` once the submission was erased (it may echo an address), but on a
   * delivery of `submission.erased` (sent no content).
   */
  lastResponse: { code: string; text: string } | null;
  messageId: string | null;
  /**
   * When the next attempt is due: set while `pending` or `retrying`, null once final, while `deferred`, and while its
   * first attempt is in flight in a consumer batch (the batch's lease stands for it: `claimFirstAttempts`).
   */
  nextAttemptAt: string | null;
  resendOf: string | null;
  /** Webhook deliveries only: the event sent (absent on email deliveries). */
  webhookEvent?: WebhookEventRef;
  createdAt: string;
  updatedAt: string;
}

/** What an attempt ended with. */
export interface AttemptOutcome {
  status: Exclude<DeliveryStatus, 'deferred'>;
  response: { code: string; text: string } | null;
  messageId: string | null;
  /** For `retrying`: when the next attempt is due. */
  nextAttemptAt: string | null;
  at: string;
}

/** One line of a delivery's attempt log. */
export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: string;
  /** Absent while the attempt is in flight (or was abandoned by a crash). */
  outcome: AttemptOutcome | null;
}

/**
 * A consumer batch's first attempts: one record that leases attempt 1 of every delivery it claimed until
 * `leaseUntil`, and that stays open until the batch's outcomes are published.
 */
export interface FirstAttemptBatch {
  id: string;
  startedAt: string;
  leaseUntil: string;
}

/** An open batch whose lease ended, with its deliveries as stored. */
export interface OpenBatch {
  batch: FirstAttemptBatch;
  deliveries: Delivery[];
}

export type ClaimResult =
  | { claimed: true }
  /** Another instance holds attempt `attempt` since `startedAt`; `outcome`: what it recorded there, if anything. */
  | { claimed: false; startedAt: string; outcome: AttemptOutcome | null };

/** The attempt record's key: unique per (delivery, attempt number). */
export const attemptKey = (deliveryId: string, attempt: number) => `${deliveryId}#${attempt}`;

export const isFinal = (status: DeliveryStatus) => status === 'succeeded' || status === 'failed';

/**
 * What notifications know of settling one submission of a no-store form (issue 31): which channel kinds recorded
 * their planning of it (each consumer group plans its own channel), and whether it was settled.
 */
export interface SubmissionSettlement {
  submissionId: string;
  orgId: string;
  formId: string;
  /** The channel kinds whose planning of the submission is recorded (its deliveries of them are in the log). */
  planned: DeliveryChannel[];
  /** When the first planning was recorded. */
  createdAt: string;
  /** While open: when the sweep looks at it next. Null once settled. */
  checkAt: string | null;
  /** When it was settled (the event's `settledAt`); null while open. */
  settledAt: string | null;
}

/** One notification address of an organization. */
export interface Recipient {
  id: string;
  orgId: string;
  /** Always lower-cased. */
  email: string;
  verified: boolean;
  createdAt: Date;
  /** When it was verified (by its link, or at once as the adding member's own sign-in address). */
  verifiedAt: Date | null;
}

export type AddRecipientResult =
  | { outcome: 'created'; recipient: Recipient }
  /** The organization already has this address (compared case-insensitively): nothing changed. */
  | { outcome: 'exists'; recipient: Recipient }
  /** The organization already has `limit` addresses: nothing changed. */
  | { outcome: 'limit-reached' };

/** How many verification mails one address of an organization may receive. */
export interface MailPolicy {
  /** The shortest time between two mails. */
  minIntervalMs: number;
  /** At most this many mails per `windowMs`. */
  maxPerWindow: number;
  windowMs: number;
}

export type MailClaim = { allowed: true } | { allowed: false; retryAt: Date };

/** A verification-mail counter of one (organization, address). */
export interface MailCounter {
  windowStart: Date;
  sentInWindow: number;
  lastSentAt: Date;
}

/** A webhook endpoint of a form. `secret` signs every delivery: it never leaves the service after its creation. */
export interface WebhookEndpoint {
  id: string;
  orgId: string;
  formId: string;
  url: string;
  kind: WebhookKind;
  events: WebhookEventType[];
  /** False when a person disabled it, or when the service disabled it since it was last enabled (`disable`). */
  enabled: boolean;
  /** Why the service disabled it; null when enabled or disabled by a person. */
  disabledReason: string | null;
  /** When it was created or last (re-)enabled: failures before this moment do not count towards disabling it. */
  enabledAt: string;
  secret: string;
  /** The secret a rotation replaced: it signs too until `expiresAt`. */
  previousSecret: { secret: string; expiresAt: string } | null;
  createdAt: string;
  updatedAt: string;
  /** How many times people changed it (`update`): a change is based on one revision and makes the next. */
  revision: number;
}

/** What `update` (a person's change) may change; the service disables an endpoint with `disable` instead. */
export type WebhookEndpointChanges = Partial<
  Pick<WebhookEndpoint, 'url' | 'kind' | 'events' | 'enabled' | 'enabledAt' | 'secret' | 'previousSecret'>
> & { updatedAt: string };

/** The service's disabling of an endpoint, for the time it was enabled at `enabledAt`. */
export interface WebhookDisabling {
  reason: string;
  /** When it was disabled: the endpoint's `updatedAt` reads at least this. */
  at: string;
}
