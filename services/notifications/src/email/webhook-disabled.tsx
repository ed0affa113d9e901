import type { MailMessage } from '@formgate/mail';
import { Heading, Link, Section, Text } from '@react-email/components';
import { render } from '@react-email/render';
import { MAX_SUBJECT_LENGTH, singleAddress } from './headers.ts';
import { Layout, styles } from './layout.tsx';
import { httpUrl, singleLine } from './plain-text.ts';

export interface WebhookDisabledInput {
  /** A verified notification address of the organization. */
  to: string;
  formName: string;
  /** The endpoint's URL (set by the organization; still escaped like any value). */
  url: string;
  /** Why it was disabled (`disabledReason`). */
  reason: string;
  /** The form's settings in the dashboard, where it can be enabled again. */
  settingsUrl: string;
}

interface View {
  formName: string;
  url: string;
  reason: string;
  settingsUrl: string;
}

function WebhookDisabled({ view }: { view: View }) {
  return (
    <Layout
      preview={`A webhook of ${view.formName} was disabled`}
      footer="Sent to the verified notification addresses of the organization."
    >
      <Heading as="h1" style={styles.heading}>
        A webhook was disabled
      </Heading>
      <Text style={styles.value}>
        Formgate stopped sending the submissions of “{view.formName}” to this endpoint: {view.reason}.
      </Text>
      <Text style={{ ...styles.value, fontFamily: 'monospace' }}>{view.url}</Text>
      <Section style={{ margin: '20px 0' }}>
        <Link href={view.settingsUrl} style={styles.button}>
          Open the form’s settings
        </Link>
      </Section>
      <Text style={styles.muted}>Fix the endpoint, then enable it again in the form’s Webhooks settings.</Text>
    </Layout>
  );
}

/** The notice that an endpoint was disabled (410 Gone, or failing deliveries): to one verified address. */
export async function composeWebhookDisabled(input: WebhookDisabledInput): Promise<MailMessage> {
  const to = singleAddress(input.to);
  if (to === undefined) throw new TypeError('a notice goes to exactly one valid address');
  const view: View = {
    formName: singleLine(input.formName, 100),
    url: input.url.slice(0, 2000),
    reason: singleLine(input.reason, 200),
    settingsUrl: httpUrl(input.settingsUrl, 'settingsUrl'),
  };
  const text = [
    `Formgate stopped sending the submissions of "${view.formName}" to this endpoint: ${view.reason}.`,
    '',
    view.url,
    '',
    `Fix the endpoint, then enable it again in the form's Webhooks settings: ${view.settingsUrl}`,
    '',
  ].join('\n');
  return {
    to,
    subject: singleLine(`A webhook of ${view.formName} was disabled`, MAX_SUBJECT_LENGTH),
    text,
    html: await render(<WebhookDisabled view={view} />),
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
