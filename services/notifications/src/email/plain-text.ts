/**
 * Text from a submission (or an organization) on its way into a mail. Everything here is hostile: it may carry line
 * breaks meant to forge a header or a line of our own layout, control characters, and bidirectional overrides that
 * make `invoice‮fdp.exe` read as `invoiceexe.pdf`.
 */

// Every line break Unicode knows, so that none survives into a header or the middle of a layout line.
const LINE_BREAKS = /\r\n|[\r\n\v\f\u0085\u2028\u2029]/g;
// Controls (C0, DEL, C1) but LF, and bidirectional marks, embeddings, overrides and isolates.
const INVISIBLE = /(?!\n)[\p{Cc}\p{Bidi_Control}]/gu;

/** Multi-line text with `\n` as the only line break and no control or bidi characters; tabs become spaces. */
export function cleanText(value: string): string {
  return value.replace(LINE_BREAKS, '\n').replaceAll('\t', '    ').replace(INVISIBLE, '');
}

/** One line (every break and control gone, spaces collapsed), at most `max` characters. */
export function singleLine(value: string, max: number): string {
  const line = cleanText(value).replace(/\s+/g, ' ').trim();
  return truncate(line, max).text;
}

/** The first `max` code points of `value` (never half a surrogate pair) and how many were left out. */
export function truncate(value: string, max: number): { text: string; omitted: number } {
  if (value.length <= max) return { text: value, omitted: 0 };
  const points = Array.from(value);
  if (points.length <= max) return { text: value, omitted: 0 };
  return { text: points.slice(0, max).join(''), omitted: points.length - max };
}

/** `value` with every line indented, so that nothing in it can start a line of the surrounding layout. */
export function indent(value: string, prefix = '    '): string {
  return value
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');
}

/** `1234567` → `1.2 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let size = bytes / 1024;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit++;
  }
  return `${size.toFixed(1)} ${units[unit]}`;
}

/** `2026-03-01T10:20:30.000Z` → `Sun, 01 Mar 2026 10:20:30 GMT`; anything unparsable is shown as it came. */
export function formatTime(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? singleLine(iso, 40) : time.toUTCString();
}

/** The URL itself when it is absolute http(s); anything else (`javascript:`, relative) is a programming error. */
export function httpUrl(value: string, what: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw new TypeError(`${what} must be an http(s) URL`);
  return url.href;
}
