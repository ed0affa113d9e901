import { submitterAddress } from './plan-deliveries.ts';
import type { Composer } from './ports.ts';

const MAX_VALUE = 2_000;

/**
 * A plain-text composer, used until the React Email templates of `src/email` are wired in (TODO(merge)). Text
 * only (no HTML to escape); header values lose their line breaks in the mailer; long values are cut.
 */
export const plainComposer: Composer = {
  notification({ form, submission, to, publicUrl }) {
    const replyTo = submitterAddress(submission);
    const lines = submission.fields.map((f) => `${f.name}: ${f.value.slice(0, MAX_VALUE)}`);
    const link = `${publicUrl}/dashboard/forms/${encodeURIComponent(form.id)}/submissions/${encodeURIComponent(submission.submissionId)}`;
    return {
      to,
      subject: form.notifications.subject ?? `New submission: ${form.name}`,
      text: [`A new submission to ${form.name}:`, '', ...lines, '', link].join('\n'),
      ...(replyTo ? { replyTo } : {}),
    };
  },
  autoresponse({ form, to }) {
    return { to, subject: `Re: ${form.name}`, text: form.notifications.autoresponse.text };
  },
};
