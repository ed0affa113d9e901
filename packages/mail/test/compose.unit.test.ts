import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { describe, expect, it } from 'vitest';
import { bodyEncodingOf, toMailOptions } from '../src/compose.ts';
import { parseMail } from '../src/testing/parse-mail.ts';

const build = (text: string, html?: string) =>
  new Promise<string>((resolve, reject) =>
    new MailComposer(
      toMailOptions(
        { to: 'alice@example.com', subject: 'Héllo', text, ...(html === undefined ? {} : { html }) },
        'Formgate <no-reply@formgate.test>',
      ),
    )
      .compile()
      .build((err, raw) => (err ? reject(err) : resolve(raw.toString()))),
  );

const encodings = (raw: string) => [...raw.matchAll(/^Content-Transfer-Encoding: (\S+)/gim)].map((m) => m[1]);

describe('the text parts’ transfer encoding', () => {
  it('is quoted-printable for mostly latin text and base64 for mostly other characters, as nodemailer decides', () => {
    expect(bodyEncodingOf(['Hello, a new submission: <b>style="color:red"</b>'])).toBe('quoted-printable');
    expect(bodyEncodingOf(['Здравствуйте, новая заявка с формы'])).toBe('base64');
    // Counted over every part: a latin html outweighs a short non-latin text.
    expect(bodyEncodingOf(['Привет', '<p>A long latin paragraph of markup</p>'])).toBe('quoted-printable');
    // Control characters count against latin letters; an empty message is base64 (no more latin than other).
    expect(bodyEncodingOf(['ab\u0001\u0002\u0003'])).toBe('base64');
    expect(bodyEncodingOf([''])).toBe('base64');
    // Decided before nodemailer builds the message (its own rule scans every part and header again).
    expect(
      toMailOptions({ to: 'a@example.com', subject: 's', text: 'Привет', html: '<p>Привет</p>' }, 'f@x.test'),
    ).toMatchObject({ textEncoding: 'base64' });
  });

  it('is set on every part of the built message, and each part decodes back to what was given', async () => {
    // Plain ASCII in short lines needs no encoding at all (nodemailer's 7bit, unchanged).
    expect(encodings(await build('Name: Ada', '<p>Name: Ada</p>'))).toEqual(['7bit', '7bit']);

    const latin = await build('Name: Adé\nMessage: x=1', '<p style="margin:0">Name: Adé</p>');
    expect(encodings(latin)).toEqual(['quoted-printable', 'quoted-printable']);
    expect(parseMail(latin)).toMatchObject({
      subject: 'Héllo',
      text: 'Name: Adé\nMessage: x=1',
      html: '<p style="margin:0">Name: Adé</p>',
    });

    const cyrillic = await build('Имя: Ада\nСообщение: привет', '<p>Имя: Ада, сообщение: привет</p>');
    expect(encodings(cyrillic)).toEqual(['base64', 'base64']);
    expect(parseMail(cyrillic)).toMatchObject({
      text: 'Имя: Ада\nСообщение: привет',
      html: '<p>Имя: Ада, сообщение: привет</p>',
    });
  });
});
