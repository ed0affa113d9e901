/** One request body with its content type; the same bytes are sent by every load generator. */
export interface Payload {
  name: 'urlencoded' | 'json' | 'multipart' | 'spam';
  contentType: string;
  body: Buffer;
}

const URLENCODED = 'name=Ada+King&email=ada%40example.com&message=Hello';
const FIELDS = { name: 'Ada King', email: 'ada@example.com', message: 'Hello' };
const BOUNDARY = '----FormgateBenchBoundary7MA4YWxkTrZu0gW';
const FILE = Buffer.from('0123456789abcdef'.repeat(64)); // exactly 1 KiB

function multipartBody(): Buffer {
  const parts = Object.entries(FIELDS).map(
    ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const fileHead =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="bench.txt"\r\n` +
    'Content-Type: text/plain\r\n\r\n';
  return Buffer.concat([Buffer.from(parts.join('') + fileHead), FILE, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
}

/** The protocol's payloads: urlencoded 51 B with 3 fields, the same as JSON, multipart with a 1 KB file. */
export const PAYLOADS: Record<Exclude<Payload['name'], 'spam'>, Payload> = {
  urlencoded: { name: 'urlencoded', contentType: 'application/x-www-form-urlencoded', body: Buffer.from(URLENCODED) },
  json: { name: 'json', contentType: 'application/json', body: Buffer.from(JSON.stringify(FIELDS)) },
  multipart: { name: 'multipart', contentType: `multipart/form-data; boundary=${BOUNDARY}`, body: multipartBody() },
};

if (PAYLOADS.urlencoded.body.length !== 51) throw new Error('the urlencoded payload must be 51 bytes');

/**
 * P1s: the urlencoded payload plus the time-trap field, with a stamp the form's `GET /f/{key}/timestamp` issued
 * (valid 24 h, so the same bytes serve a whole run): every request goes through every spam layer's full check.
 */
export function spamPayload(stamp: { field: string; value: string }): Payload {
  const body = `${URLENCODED}&${encodeURIComponent(stamp.field)}=${encodeURIComponent(stamp.value)}`;
  return { name: 'spam', contentType: 'application/x-www-form-urlencoded', body: Buffer.from(body) };
}
