import type { MailMessage } from '@formgate/mail';
import { Heading, Link, Section, Text } from '@react-email/components';
import { render } from '@react-email/render';
import { renderSubject, singleAddress, submissionMessageId, submitterAddress } from './headers.ts';
import { Layout, styles } from './layout.tsx';
import { type SubmissionView, type SubmissionViewInput, submissionText, toSubmissionView } from './submission-view.ts';

export interface SubmissionNotificationInput extends SubmissionViewInput {
  /** One verified notification address; one message per recipient. */
  recipient: string;
  /** The form's `settings.notifications.subject` (`{{form}}`, `{{subject}}`); null → the default. */
  subjectTemplate: string | null;
  /** The host in the `Message-ID`; the dashboard's host by default. */
  messageIdDomain?: string;
  /** Set for a resend (its delivery id): it gets a `Message-ID` of its own. */
  resendId?: string;
}

function SubmissionNotification({ view }: { view: SubmissionView }) {
  const fullSubmission = (
    <Link href={view.submissionUrl} style={styles.link}>
      see the full submission
    </Link>
  );
  return (
    <Layout
      preview={`New submission to ${view.formName}`}
      footer="You receive this because this address is notified of the form's submissions. Its settings are in the dashboard."
    >
      <Heading as="h1" style={styles.heading}>
        New submission to {view.formName}
      </Heading>
      <Text style={styles.muted}>Received: {view.receivedAt}</Text>
      {view.origin !== undefined && <Text style={styles.muted}>Origin: {view.origin}</Text>}
      {view.referer !== undefined && <Text style={styles.muted}>Referer: {view.referer}</Text>}
      <Section>
        {view.fields.map((field, index) => (
          // Names repeat (`tag[]`) and order is all there is to tell fields apart.
          // biome-ignore lint/suspicious/noArrayIndexKey: static markup, never reconciled
          <Section key={index}>
            <Text style={styles.label}>{field.name}</Text>
            <Text style={styles.value}>
              {field.value}
              {field.omittedChars > 0 && (
                <>
                  {' '}
                  [cut: {field.omittedChars} more characters, {fullSubmission}]
                </>
              )}
            </Text>
          </Section>
        ))}
        {view.fields.length === 0 && <Text style={styles.muted}>(no fields)</Text>}
        {view.omittedFields > 0 && (
          <Text style={styles.muted}>
            {view.omittedFields} more fields: {fullSubmission}.
          </Text>
        )}
      </Section>
      {view.files.length > 0 && (
        <Section>
          <Text style={styles.label}>Files (the links expire)</Text>
          {view.files.map((file, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: static markup, never reconciled
            <Text key={index} style={styles.value}>
              <Link href={file.url} style={styles.link}>
                {file.name}
              </Link>{' '}
              ({file.size})
            </Text>
          ))}
        </Section>
      )}
      <Section style={{ marginTop: '24px' }}>
        <Link href={view.submissionUrl} style={styles.button}>
          Open the submission in Formgate
        </Link>
      </Section>
    </Layout>
  );
}

/** What a submission's notification says, the same for every recipient: composed once, sent to each. */
export type SubmissionNotificationBody = Pick<MailMessage, 'subject' | 'text' | 'html' | 'replyTo' | 'headers'> & {
  /** The default host of the `Message-ID` (the dashboard's). */
  host: string;
};

/**
 * The recipient-independent part of the notification (the costly part: the React render). Throws a `TypeError` when
 * `dashboardUrl` or a file link is not an http(s) URL.
 */
export async function composeSubmissionNotificationBody(
  input: Omit<SubmissionNotificationInput, 'recipient' | 'resendId' | 'messageIdDomain'>,
): Promise<SubmissionNotificationBody> {
  const view = toSubmissionView(input);
  const { submission } = input;
  const replyTo = submitterAddress(submission);
  return {
    subject: renderSubject(input.subjectTemplate, { form: input.form.name, subject: submission.meta.subject }),
    text: submissionText(view),
    html: await render(<SubmissionNotification view={view} />),
    ...(replyTo === undefined ? {} : { replyTo }),
    headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
    host: new URL(view.submissionUrl).hostname,
  };
}

/** The notification of `body` addressed to one recipient, with its deterministic `Message-ID`. */
export function addressSubmissionNotification(
  body: SubmissionNotificationBody,
  input: Pick<SubmissionNotificationInput, 'submission' | 'recipient' | 'messageIdDomain' | 'resendId'>,
): MailMessage {
  const recipient = singleAddress(input.recipient);
  if (recipient === undefined) throw new TypeError('a notification goes to exactly one valid address');
  const { host: _host, headers, ...rest } = body;
  return {
    to: recipient,
    ...rest,
    messageId: submissionMessageId({
      submissionId: input.submission.submissionId,
      purpose: 'notification',
      recipient,
      domain: input.messageIdDomain ?? body.host,
      ...(input.resendId === undefined ? {} : { resendId: input.resendId }),
    }),
    headers: { ...headers },
  };
}

/**
 * The mail telling one recipient about one submission: every field in order (values over 2,000 characters and fields
 * past the 100th behind a link to the submission), time, origin and referer, files as expiring links. `Reply-To` is
 * the submitter's address when it is a single valid one; the `Message-ID` is the same for every attempt to this
 * recipient. Throws a `TypeError` when `recipient` is not one valid address, or `dashboardUrl` or a file link is
 * not an http(s) URL.
 */
export async function composeSubmissionNotification(input: SubmissionNotificationInput): Promise<MailMessage> {
  if (singleAddress(input.recipient) === undefined) {
    throw new TypeError('a notification goes to exactly one valid address');
  }
  return addressSubmissionNotification(await composeSubmissionNotificationBody(input), input);
}
