import type { MailMessage } from '@formgate/mail';
import { Text } from '@react-email/components';
import { render } from '@react-email/render';
import { MAX_SUBJECT_LENGTH, singleAddress, submissionMessageId } from './headers.ts';
import { Layout, styles } from './layout.tsx';
import { cleanText, singleLine } from './plain-text.ts';

export interface AutoresponseInput {
  form: { id: string; name: string };
  submission: { submissionId: string };
  /** The submitter's address, from `submitterAddress(submission)`. */
  to: string;
  /** The form's `settings.notifications.autoresponse.text`: plain text, paragraphs separated by blank lines. */
  text: string;
  /** The host in the `Message-ID` (the sender's domain or the public host). */
  messageIdDomain: string;
  /** Set for a resend (its delivery id): it gets a `Message-ID` of its own. */
  resendId?: string;
}

const paragraphsOf = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');

function Autoresponse({ formName, paragraphs }: { formName: string; paragraphs: string[] }) {
  return (
    <Layout
      preview={`Re: ${formName}`}
      footer="This is an automatic reply to a form you submitted; it was sent by Formgate on behalf of the form's owner."
    >
      {paragraphs.map((paragraph, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: static markup, never reconciled
        <Text key={index} style={{ ...styles.value, margin: '0 0 14px' }}>
          {paragraph}
        </Text>
      ))}
    </Layout>
  );
}

/**
 * The automatic reply to a submitter: the form's fixed text only, never anything submitted (the address is the
 * submitter's claim, so the mail must be useless for sending chosen content to someone else). `Auto-Submitted:
 * auto-replied` so that auto-responders do not answer it; one `Message-ID` per submission and address. Throws a
 * `TypeError` when `to` is not a single valid address.
 */
export async function composeAutoresponse(input: AutoresponseInput): Promise<MailMessage> {
  const to = singleAddress(input.to);
  if (to === undefined) throw new TypeError('an autoresponse goes to exactly one valid address');
  const formName = singleLine(input.form.name, MAX_SUBJECT_LENGTH - 4);
  const paragraphs = paragraphsOf(cleanText(input.text));
  return {
    to,
    subject: `Re: ${formName}`,
    text: `${paragraphs.join('\n\n')}\n`,
    html: await render(<Autoresponse formName={formName} paragraphs={paragraphs} />),
    messageId: submissionMessageId({
      submissionId: input.submission.submissionId,
      purpose: 'autoresponse',
      recipient: to,
      domain: input.messageIdDomain,
      ...(input.resendId === undefined ? {} : { resendId: input.resendId }),
    }),
    headers: { 'Auto-Submitted': 'auto-replied', 'X-Auto-Response-Suppress': 'All' },
  };
}
