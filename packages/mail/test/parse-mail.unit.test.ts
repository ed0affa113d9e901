import { describe, expect, it } from 'vitest';
import { decodeEncodedWords, parseMail } from '../src/testing/parse-mail.ts';

const crlf = (lines: string[]) => lines.join('\r\n');

describe('parseMail', () => {
  it('decodes quoted-printable soft line breaks and escapes back into the original text', () => {
    const raw = crlf([
      'Subject: =?UTF-8?Q?V=C3=A9rifiez?= =?UTF-8?B?IOKckw==?=',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      'Caf=C3=A9 https://a.test/v?=',
      'token=3Dabc&x=3D1',
      '',
    ]);
    const mail = parseMail(raw);
    expect(mail.subject).toBe('Vérifiez ✓');
    expect(mail.text).toBe('Café https://a.test/v?token=abc&x=1\n');
    expect(mail.html).toBeUndefined();
  });

  it('reads the text and html parts of a multipart message, base64 included', () => {
    const raw = crlf([
      'Subject: multi',
      'Content-Type: multipart/alternative;',
      ' boundary="--b1"',
      '',
      '----b1',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('日本語\nhttps://a.test/x\n').toString('base64'),
      '----b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>hi</p>',
      '----b1--',
      '',
    ]);
    const mail = parseMail(raw);
    expect(mail.text).toBe('日本語\nhttps://a.test/x\n');
    expect(mail.html).toBe('<p>hi</p>');
    expect(mail.headers['content-type']).toBe('multipart/alternative; boundary="--b1"');
  });

  it('keeps the whitespace between an encoded-word and plain text, drops it between two encoded-words', () => {
    expect(decodeEncodedWords('=?UTF-8?Q?a_b?= =?UTF-8?Q?c?= d')).toBe('a bc d');
  });
});
