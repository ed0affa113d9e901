import { EMPTY_VALUE, escapeSlack, fitText, headingFor, safeLink } from './chat-text.ts';
import { toInertJson } from './inert-json.ts';
import { type ChatBodyOptions, carriesContent, type WebhookEvent } from './webhook-event.ts';

/** Slack allows 50 blocks per message and 3000 characters per section text; these stay well inside. */
const MAX_FIELDS = 25;
const MAX_NAME = 200;
const MAX_VALUE = 1000;
const MAX_FORM_NAME = 200;

const fit = (text: string, max: number) => fitText(text, max, escapeSlack);
const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const context = (text: string) => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/**
 * A Slack incoming-webhook message (`text` for notifications, `blocks` for the message): mrkdwn with every value
 * escaped (`&`, `<`, `>`), so no value can make a link or a mention, and cut to Slack's limits.
 */
export function buildSlackBody(event: WebhookEvent, options: ChatBodyOptions = {}): string {
  const heading = `${headingFor(event.type)} ${fit(event.form.name, MAX_FORM_NAME)}`;
  const blocks: object[] = [section(`*${heading}*`)];
  if (carriesContent(event)) {
    const { fields, files } = event.submission;
    for (const field of fields.slice(0, MAX_FIELDS)) {
      const value = field.value === '' ? EMPTY_VALUE : fit(field.value, MAX_VALUE);
      blocks.push(section(`*${fit(field.name, MAX_NAME) || EMPTY_VALUE}*\n${value}`));
    }
    if (fields.length > MAX_FIELDS) blocks.push(context(`…and ${fields.length - MAX_FIELDS} more fields`));
    if (files.length > 0) {
      blocks.push(section(`*Files*\n${fit(files.map((file) => file.filename).join(', '), MAX_VALUE)}`));
    }
  }
  const link = safeLink(options.submissionUrl);
  const footer = `Submission ${fit(event.submission.id, 100)} · ${fit(event.occurredAt, 40)}`;
  blocks.push(context(link ? `${footer} · <${link}|Open in Formgate>` : footer));
  return toInertJson({ text: heading, blocks });
}
