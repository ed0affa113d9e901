import type { MailMessage } from '@formgate/mail';
import type { WebhookEndpoint } from '../endpoints/webhook-endpoint-store.ts';
import type { FormView, StoredSubmission } from './delivery-store.ts';

/**
 * What the caller of an attempt has read already (the received handler: its batch's form view, the submission's
 * copy it just saved, the form's webhook endpoints), so that a first attempt does not read them again: on a Mongo
 * server each is a round trip, and a batch's first attempts are most of the work. What is missing is read.
 */
export interface AttemptContext {
  form?: FormView;
  submission?: StoredSubmission;
  endpoints?: readonly WebhookEndpoint[];
}

/** What composing a mail needs: the form, the submission as received, the recipient and where the app lives. */
export interface ComposeInput {
  form: FormView;
  submission: StoredSubmission;
  /** The recipient's address. */
  to: string;
  /** The dashboard's base URL (links to the submission). */
  publicUrl: string;
  /** For a resend, its delivery id: the mail is a new message (its own `Message-ID`), not a retry. */
  resendId?: string;
}

/**
 * Builds the mails (`createEmailComposer` of `src/email` in both hosts). Must escape every submission value, keep header
 * values free of line breaks, and may set a deterministic `Message-ID` in `headers`.
 */
export interface Composer {
  notification(input: ComposeInput): MailMessage | Promise<MailMessage>;
  autoresponse(input: ComposeInput): MailMessage | Promise<MailMessage>;
}

/** The organization's verified notification addresses (the `src/recipients` module provides the real one). */
export interface Recipients {
  listVerified(orgId: string): Promise<string[]>;
}
