/** A message decoded well enough for tests: headers, and the first text/plain and text/html parts. */
export interface ParsedMail {
  subject: string;
  text: string;
  html?: string;
  /** Lower-cased names; unfolded; RFC 2047 encoded-words decoded; the first occurrence of a repeated name. */
  headers: Record<string, string>;
}

type Headers = Record<string, string>;

function decodeBytes(bytes: Uint8Array, charset = 'utf-8'): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** Quoted-printable to bytes; `input` holds one character per byte. */
function decodeQuotedPrintable(input: string): Buffer {
  const unwrapped = input.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < unwrapped.length; i++) {
    const hex = unwrapped.slice(i + 1, i + 3);
    if (unwrapped[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(unwrapped.charCodeAt(i) & 0xff);
    }
  }
  return Buffer.from(bytes);
}

function decodeTransfer(body: string, encoding = '7bit'): Buffer {
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64');
    default:
      return Buffer.from(body, 'latin1');
  }
}

/** RFC 2047: `=?charset?Q|B?…?=`; whitespace between two adjacent encoded-words is not part of the text. */
export function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[BbQq]\?)/g, '$1')
    .replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (_word, charset: string, kind: string, data: string) => {
      const bytes =
        kind.toUpperCase() === 'B'
          ? Buffer.from(data, 'base64')
          : decodeQuotedPrintable(data.replace(/_/g, ' ').replace(/=\r?\n/g, ''));
      // `utf-8*lang` (RFC 2231 language suffix) names the same charset.
      return decodeBytes(bytes, charset.split('*')[0]);
    });
}

function parseHeaders(block: string): Headers {
  const headers: Headers = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] ??= decodeEncodedWords(Buffer.from(line.slice(colon + 1).trim(), 'latin1').toString('utf8'));
  }
  return headers;
}

/** `text/plain; charset=utf-8` → `{ type: 'text/plain', params: { charset: 'utf-8' } }`. */
function parseContentType(value = 'text/plain'): { type: string; params: Record<string, string> } {
  const [type = 'text/plain', ...rest] = value.split(';');
  const params: Record<string, string> = {};
  for (const match of rest.join(';').matchAll(/([\w*-]+)\s*=\s*(?:"([^"]*)"|([^;\s]*))/g)) {
    params[(match[1] ?? '').toLowerCase()] = match[2] ?? match[3] ?? '';
  }
  return { type: type.trim().toLowerCase(), params };
}

function splitEntity(entity: string): { headers: Headers; body: string } {
  const match = /\r?\n\r?\n/.exec(entity);
  if (!match) return { headers: parseHeaders(entity), body: '' };
  return { headers: parseHeaders(entity.slice(0, match.index)), body: entity.slice(match.index + match[0].length) };
}

function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const [, ...parts] = body.split(new RegExp(`\\r?\\n?${delimiter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  const closing = parts.findIndex((part) => part.startsWith('--'));
  return parts.slice(0, closing === -1 ? parts.length : closing).map((part) => part.replace(/^[ \t]*\r?\n/, ''));
}

function collectParts(entity: string, found: { text?: string; html?: string }) {
  const { headers, body } = splitEntity(entity);
  const { type, params } = parseContentType(headers['content-type']);
  if (type.startsWith('multipart/') && params.boundary) {
    for (const part of splitMultipart(body, params.boundary)) collectParts(part, found);
    return;
  }
  if (type !== 'text/plain' && type !== 'text/html') return;
  const decoded = decodeBytes(decodeTransfer(body, headers['content-transfer-encoding']), params.charset);
  const content = decoded.replace(/\r\n/g, '\n');
  if (type === 'text/plain') found.text ??= content;
  else found.html ??= content;
}

/** Parses an RFC 822 message (as sent by nodemailer) into its subject, text, html and headers. */
export function parseMail(raw: Buffer | string): ParsedMail {
  // latin1 keeps one character per byte, so 8-bit bodies can be decoded with their own charset later.
  const message = typeof raw === 'string' ? Buffer.from(raw, 'utf8').toString('latin1') : raw.toString('latin1');
  const { headers } = splitEntity(message);
  const found: { text?: string; html?: string } = {};
  collectParts(message, found);
  return { subject: headers.subject ?? '', text: found.text ?? '', html: found.html, headers };
}
