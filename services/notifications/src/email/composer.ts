import type { FileLinks } from '@formgate/kit';
import type { Composer } from '../deliveries/ports.ts';
import { composeAutoresponse } from './autoresponse.tsx';
import { composeSubmissionNotification } from './submission-notification.tsx';

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
  return {
    notification({ form, submission, to, publicUrl, resendId }) {
      const base = publicUrl.replace(/\/+$/, '');
      return composeSubmissionNotification({
        form,
        submission,
        recipient: to,
        subjectTemplate: form.notifications.subject,
        dashboardUrl: base,
        messageIdDomain: domainOf(publicUrl),
        ...(resendId === undefined ? {} : { resendId }),
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
