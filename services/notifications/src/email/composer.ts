import type { FileLinks } from '@formgate/kit';
import type { MailMessage } from '@formgate/mail';
import type { FormView, StoredSubmission } from '../store/index.ts';
import { composeAutoresponse } from './autoresponse.tsx';
import {
  addressSubmissionNotification,
  composeSubmissionNotificationBody,
  type SubmissionNotificationBody,
} from './submission-notification.tsx';

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
 * Builds the mails (`createEmailComposer` in both hosts). Must escape every submission value, keep header values
 * free of line breaks, and may set a deterministic `Message-ID` in `headers`.
 */
export interface Composer {
  notification(input: ComposeInput): MailMessage | Promise<MailMessage>;
  autoresponse(input: ComposeInput): MailMessage | Promise<MailMessage>;
}

/**
 * Notification bodies kept for the other recipients of the same submission (sent at about the same time): at most
 * this many, for at most this long (their file links were signed when they were rendered).
 */
const BODY_CACHE = { size: 256, ttlMs: 60_000 };

/** Files in a notification mail stay downloadable this long (the dashboard's own links last 5 minutes). */
export const MAIL_FILE_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface EmailComposerDeps {
  /** Signs file links with the forms service's secret (`FILE_LINK_SECRET`): it serves `/api/v1/files/{token}`. */
  fileLinks: FileLinks;
  clock: { now(): Date };
  /** The host in `Message-ID`s (default: the public URL's host). */
  messageIdDomain?: string;
}

/** The delivery pipeline's `Composer` over the React Email templates of this directory. */
export function createEmailComposer(deps: EmailComposerDeps): Composer {
  const domainOf = (publicUrl: string) => deps.messageIdDomain ?? new URL(publicUrl).hostname;
  // The body does not depend on the recipient: a submission's notifications render it once (P12: rendering is most
  // of the CPU a mail costs). Keyed by everything it is made of: the submission, the form's version, the base URL.
  const bodies = new Map<string, { at: number; body: Promise<SubmissionNotificationBody> }>();
  const cachedBody = (key: string, make: () => Promise<SubmissionNotificationBody>) => {
    const now = deps.clock.now().getTime();
    const hit = bodies.get(key);
    if (hit && now - hit.at < BODY_CACHE.ttlMs) return hit.body;
    const body = make();
    bodies.delete(key);
    bodies.set(key, { at: now, body });
    body.catch(() => bodies.delete(key));
    if (bodies.size > BODY_CACHE.size) bodies.delete(bodies.keys().next().value as string);
    return body;
  };
  return {
    async notification({ form, submission, to, publicUrl, resendId }) {
      const base = publicUrl.replace(/\/+$/, '');
      const key = JSON.stringify([submission.submissionId, form.id, form.version, base]);
      const body = await cachedBody(key, () =>
        composeSubmissionNotificationBody({
          form,
          submission,
          subjectTemplate: form.notifications.subject,
          dashboardUrl: base,
          fileLink: (file) => {
            const grant = {
              orgId: form.orgId,
              formId: form.id,
              submissionId: submission.submissionId,
              blobKey: file.blobKey,
            };
            const { token } = deps.fileLinks.sign(grant, deps.clock.now().getTime(), MAIL_FILE_LINK_TTL_SECONDS);
            return `${base}/api/v1/files/${token}`;
          },
        }),
      );
      return addressSubmissionNotification(body, {
        submission,
        recipient: to,
        messageIdDomain: domainOf(publicUrl),
        ...(resendId === undefined ? {} : { resendId }),
      });
    },
    autoresponse({ form, submission, to, publicUrl, resendId }) {
      return composeAutoresponse({
        form,
        submission,
        to,
        text: form.notifications.autoresponse.text,
        messageIdDomain: domainOf(publicUrl),
        ...(resendId === undefined ? {} : { resendId }),
      });
    },
  };
}
