import { EMPTY_VALUE, escapeDiscord, fitText, headingFor, safeLink } from './chat-text.ts';
import { toInertJson } from './inert-json.ts';
import { type ChatBodyOptions, carriesContent, type WebhookEvent } from './webhook-event.ts';

/**
 * Discord's limits (https://discord.com/developers/docs/resources/message#embed-object-embed-limits): content 2000,
 * title 256, 25 fields, field name 256 and value 1024, footer 2048, and 6000 characters over a message's embeds.
 */
const LIMITS = { content: 2000, title: 256, fields: 25, fieldName: 256, fieldValue: 1024, embedTotal: 6000 };
/** Kept free of the 6000 for the "…and N more fields" field. */
const RESERVED = 80;

const fit = (text: string, max: number) => fitText(text, max, escapeDiscord);

interface EmbedField {
  name: string;
  value: string;
  inline: false;
}

function fieldsOf(event: WebhookEvent, budget: number): EmbedField[] {
  if (!carriesContent(event)) return [];
  const { fields: values, files } = event.submission;
  const all = values.map((field) => ({ name: field.name, value: field.value }));
  if (files.length > 0) all.push({ name: 'Files', value: files.map((file) => file.filename).join(', ') });
  const out: EmbedField[] = [];
  let used = 0;
  for (const item of all) {
    const name = fit(item.name, LIMITS.fieldName) || EMPTY_VALUE;
    const value = fit(item.value, LIMITS.fieldValue) || EMPTY_VALUE;
    if (out.length === LIMITS.fields - 1 || used + name.length + value.length > budget - RESERVED) break;
    out.push({ name, value, inline: false });
    used += name.length + value.length;
  }
  const left = all.length - out.length;
  if (left > 0) out.push({ name: 'More', value: `…and ${left} more not shown`, inline: false });
  return out;
}

/**
 * A Discord webhook message: a one-line `content` and one embed with a field per submission field, markdown escaped,
 * mentions disabled (`allowed_mentions: {parse: []}`), and every length inside Discord's limits.
 */
export function buildDiscordBody(event: WebhookEvent, options: ChatBodyOptions = {}): string {
  const title = fit(`${headingFor(event.type)} ${event.form.name}`, LIMITS.title);
  const footer = fit(`Submission ${event.submission.id}`, 200);
  const link = safeLink(options.submissionUrl);
  const embed = {
    title,
    ...(link ? { url: link } : {}),
    fields: fieldsOf(event, LIMITS.embedTotal - title.length - footer.length),
    footer: { text: footer },
    timestamp: event.occurredAt,
  };
  return toInertJson({ content: title, embeds: [embed], allowed_mentions: { parse: [] } });
}
