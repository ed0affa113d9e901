import type { MailMessage } from '@formgate/mail';
import { Heading, Link, Section, Text } from '@react-email/components';
import { render } from '@react-email/render';
import { MAX_SUBJECT_LENGTH, singleAddress } from './headers.ts';
import { Layout, styles } from './layout.tsx';
import { formatTime, httpUrl, singleLine } from './plain-text.ts';

export interface RecipientVerificationInput {
  /** The notification address to confirm. */
  email: string;
  /** The signed confirmation link. */
  link: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
  orgName: string;
}

interface VerificationView {
  email: string;
  link: string;
  expiresAt: string;
  orgName: string;
}

function RecipientVerification({ view }: { view: VerificationView }) {
  return (
    <Layout
      preview={`Confirm ${view.email} for ${view.orgName} notifications`}
      footer="If you did not expect this mail, ignore it: nothing is sent to this address until it is confirmed."
    >
      <Heading as="h1" style={styles.heading}>
        Confirm this address for form notifications
      </Heading>
      <Text style={styles.value}>
        The organization “{view.orgName}” on Formgate asked to send its form submissions to {view.email}.
      </Text>
      <Section style={{ margin: '20px 0' }}>
        <Link href={view.link} style={styles.button}>
          Confirm {view.email}
        </Link>
      </Section>
      <Text style={styles.muted}>The link works until {view.expiresAt}. It is also here:</Text>
      <Text style={{ ...styles.muted, overflowWrap: 'anywhere' }}>
        <Link href={view.link} style={styles.link}>
          {view.link}
        </Link>
      </Text>
    </Layout>
  );
}

/**
 * The double opt-in mail for a notification address: `Confirm {email} for {orgName} notifications`, with the signed
 * link and when it expires. Throws a `TypeError` when `email` is not one valid address or `link` not an http(s) URL.
 */
export async function composeRecipientVerification(input: RecipientVerificationInput): Promise<MailMessage> {
  const email = singleAddress(input.email);
  if (email === undefined) throw new TypeError('a verification goes to exactly one valid address');
  const view: VerificationView = {
    email,
    link: httpUrl(input.link, 'link'),
    expiresAt: formatTime(input.expiresAt),
    orgName: singleLine(input.orgName, 100),
  };
  const text = [
    `The organization "${view.orgName}" on Formgate asked to send its form submissions to ${email}.`,
    '',
    `To confirm, open this link (it works until ${view.expiresAt}):`,
    view.link,
    '',
    'If you did not expect this mail, ignore it: nothing is sent to this address until it is confirmed.',
    '',
  ].join('\n');
  return {
    to: email,
    subject: singleLine(`Confirm ${email} for ${view.orgName} notifications`, MAX_SUBJECT_LENGTH),
    text,
    html: await render(<RecipientVerification view={view} />),
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
