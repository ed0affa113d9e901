import {
  type SubmissionDto,
  type SubmissionFile,
  WebhookEventTypeSchema,
  WebhookKindSchema,
} from '@formgate/contracts';

/**
 * The submission as the API returns it, but for its files' malware scans (issue 33): a webhook is sent as the
 * submission arrives, before any verdict, so its files are listed without one (the API has them).
 */
export type WebhookSubmission = Omit<SubmissionDto, 'files'> & { files: SubmissionFile[] };

export type { WebhookEventType, WebhookKind } from '@formgate/contracts';
export type { SentWebhookEventType } from '../../store/records.ts';

/** The events an endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = WebhookEventTypeSchema.options;

/** How the body is shaped: Standard Webhooks JSON, a Slack incoming webhook, a Discord webhook, or a REST hook's. */
export const WEBHOOK_KINDS = WebhookKindSchema.options;

export interface WebhookFormRef {
  id: string;
  name: string;
}

/** What is left to say about a deleted submission: its fields and files are gone. */
export interface DeletedSubmissionRef {
  id: string;
  formId: string;
  createdAt: string;
}

/** What is left to say about an erased submission: a deleted one's ids and dates, and the erasure's id. */
export interface ErasedSubmissionRef extends DeletedSubmissionRef {
  erasureId: string;
}

/** One thing that happened to a submission, as the webhook bodies describe it. All text in it is untrusted. */
export type WebhookEvent =
  | {
      type: 'submission.created' | 'submission.spam';
      /** When it happened (ISO 8601): the body's `timestamp`. */
      occurredAt: string;
      form: WebhookFormRef;
      submission: WebhookSubmission;
    }
  | { type: 'submission.deleted'; occurredAt: string; form: WebhookFormRef; submission: DeletedSubmissionRef }
  | { type: 'submission.erased'; occurredAt: string; form: WebhookFormRef; submission: ErasedSubmissionRef };

/** Whether the event carries the submission's content (fields, files): a deleted or erased one's is gone. */
export const carriesContent = (
  event: WebhookEvent,
): event is Extract<WebhookEvent, { type: 'submission.created' | 'submission.spam' }> =>
  event.type === 'submission.created' || event.type === 'submission.spam';

export interface ChatBodyOptions {
  /** The submission's page in the dashboard, linked from chat messages (values there are cut). */
  submissionUrl?: string;
}
