/**
 * Turning hostile submission text into chat markup that shows it literally: no link, no mention, no formatting that
 * reaches past the value, and never longer than the target's limit.
 */

/**
 * Slack mrkdwn: `&`, `<`, `>` are the only control characters Slack asks to escape, and without `<` no value can
 * form a link (`<url|text>`), a user or group mention (`<@U…>`, `<!subteam^…>`) or `<!channel>` / `<!here>`.
 */
export function escapeSlack(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/**
 * Discord markdown: every character that can start formatting, a heading, a list, a quote, a masked link, a spoiler,
 * a mention (`<@…>`, `@everyone`) or a custom emoji is backslash-escaped (Discord shows `\x` as `x` for punctuation).
 * Mentions are also disabled by `allowed_mentions` in the body; this keeps them from even rendering.
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|<>#\-+[\]()@:.]/g, '\\$&');
}

const ELLIPSIS = '…';

function isControl(char: string): boolean {
  const code = char.charCodeAt(0);
  return (code < 0x20 && char !== '\n' && char !== '\t') || code === 0x7f;
}

/**
 * `text` escaped by `escape`, cut (on a code point, never inside an escape) so the result has at most `max` UTF-16
 * units, an ellipsis included when cut. Control characters other than newline and tab become spaces.
 */
export function fitText(text: string, max: number, escapeMarkup: (text: string) => string): string {
  const cleaned = Array.from(text, (char) => (isControl(char) ? ' ' : char)).join('');
  const whole = escapeMarkup(cleaned);
  if (whole.length <= max) return whole;
  let out = '';
  for (const char of cleaned) {
    const piece = escapeMarkup(char);
    if (out.length + piece.length + ELLIPSIS.length > max) break;
    out += piece;
  }
  return out + ELLIPSIS;
}

/** A label for an empty value: chat blocks and embed fields must not be empty. */
export const EMPTY_VALUE = '(empty)';

/** The one-line heading of a chat message for each event. */
export function headingFor(type: string): string {
  if (type === 'submission.spam') return 'Submission marked as spam in';
  if (type === 'submission.deleted') return 'Submission deleted from';
  if (type === 'submission.erased') return 'Submission erased from';
  return 'New submission to';
}

/** An `http(s)` URL safe to put in markup, or undefined. */
export function safeLink(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
    return parsed.href.replace(/[|<>()\s]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  } catch {
    return undefined;
  }
}
