import type { SubmissionField } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { splitReservedFields } from '../src/reserved-fields.ts';

const fields = (...pairs: [string, string][]): SubmissionField[] => pairs.map(([name, value]) => ({ name, value }));
const split = (pairs: [string, string][], customHoneypot: string | null = null) =>
  splitReservedFields(fields(...pairs), customHoneypot);
const data = [{ name: 'message', value: 'hi' }];

describe('splitReservedFields: aliases from the product reference', () => {
  it.each(['_next', '_redirect', 'redirect', 'redirectTo', 'redirect_url'])('%s is the success redirect', (alias) => {
    const out = split([
      ['message', 'hi'],
      [alias, 'https://site.example/thanks'],
    ]);
    expect(out.redirect).toBe('https://site.example/thanks');
    expect(out.data).toEqual(data);
  });

  it('_error is the error redirect', () => {
    const out = split([
      ['_error', 'https://site.example/oops'],
      ['message', 'hi'],
    ]);
    expect(out.errorRedirect).toBe('https://site.example/oops');
    expect(out.redirect).toBeUndefined();
    expect(out.data).toEqual(data);
  });

  it.each(['_subject', 'subject', '_email.subject'])('%s is the subject', (alias) => {
    const out = split([
      [alias, 'Hello'],
      ['message', 'hi'],
    ]);
    expect(out.meta.subject).toBe('Hello');
    expect(out.data).toEqual(data);
  });

  it.each(['_replyto', 'replyto', '_email.replyto'])('%s is the reply-to', (alias) => {
    const out = split([
      ['message', 'hi'],
      [alias, 'person@example.com'],
    ]);
    expect(out.meta.replyTo).toBe('person@example.com');
    expect(out.data).toEqual(data);
  });

  it.each(['_cc', 'ccemail'])('%s is the cc list', (alias) => {
    const out = split([
      [alias, 'a@example.com'],
      ['message', 'hi'],
    ]);
    expect(out.meta.cc).toEqual(['a@example.com']);
    expect(out.data).toEqual(data);
  });

  it.each(['g-recaptcha-response', 'h-captcha-response', 'cf-turnstile-response', 'altcha'])(
    '%s is a captcha token',
    (alias) => {
      const out = split([
        [alias, 'token-123'],
        ['message', 'hi'],
      ]);
      expect(out.captchaTokens).toEqual({ [alias]: 'token-123' });
      expect(out.data).toEqual(data);
    },
  );

  it.each(['_format', '_template'])('%s is the format', (alias) => {
    const out = split([
      [alias, 'plain'],
      ['message', 'hi'],
    ]);
    expect(out.meta.format).toBe('plain');
    expect(out.data).toEqual(data);
  });

  it('_language is the language', () => {
    const out = split([
      ['_language', 'nb'],
      ['message', 'hi'],
    ]);
    expect(out.meta.language).toBe('nb');
    expect(out.data).toEqual(data);
  });

  it('form-name (Netlify) is dropped without being data', () => {
    const out = split([
      ['form-name', 'contact'],
      ['message', 'hi'],
    ]);
    expect(out.data).toEqual(data);
    expect(out.meta).toEqual({});
    expect(out.spam).toEqual({ isSpam: false, reasons: [] });
  });

  it('keeps ordinary fields, look-alikes and empty values as data, in order', () => {
    const out = split([
      ['name', 'Ann'],
      ['_nextpage', 'x'],
      ['Subject', 'case differs'],
      ['message', ''],
    ]);
    expect(out.data).toEqual(fields(['name', 'Ann'], ['_nextpage', 'x'], ['Subject', 'case differs'], ['message', '']));
    expect(out.meta).toEqual({});
  });

  it('takes the first of repeated redirect, subject and reply-to aliases', () => {
    const out = split([
      ['_next', 'https://a.example/'],
      ['redirect', 'https://b.example/'],
      ['_subject', 'First'],
      ['subject', 'Second'],
      ['_replyto', 'first@example.com'],
      ['replyto', 'second@example.com'],
    ]);
    expect(out).toMatchObject({
      redirect: 'https://a.example/',
      meta: { subject: 'First', replyTo: 'first@example.com' },
      data: [],
    });
  });
});

describe('splitReservedFields: honeypots', () => {
  it.each(['_gotcha', '_honey', '_honeypot', 'botcheck', 'bot-field'])(
    'a filled %s marks the submission as spam with its reason',
    (name) => {
      const out = split([
        ['message', 'hi'],
        [name, 'I am a bot'],
      ]);
      expect(out.spam).toEqual({
        isSpam: true,
        reasons: [{ layer: 'honeypot', rule: 'field-filled', detail: `honeypot field ${name} was filled` }],
      });
      expect(out.data).toEqual(data);
    },
  );

  it('the per-form custom honeypot counts too, and is not data', () => {
    const out = split(
      [
        ['message', 'hi'],
        ['website', 'http://spam.example'],
      ],
      'website',
    );
    expect(out.spam).toEqual({
      isSpam: true,
      reasons: [{ layer: 'honeypot', rule: 'field-filled', detail: `honeypot field website was filled` }],
    });
    expect(out.data).toEqual(data);
  });

  it('a custom honeypot name of another form is ordinary data', () => {
    const out = split([['website', 'http://mine.example']], null);
    expect(out.spam).toEqual({ isSpam: false, reasons: [] });
    expect(out.data).toEqual(fields(['website', 'http://mine.example']));
  });

  it('records every filled honeypot as a reason', () => {
    const out = split(
      [
        ['_gotcha', 'x'],
        ['website', 'y'],
        ['message', 'hi'],
      ],
      'website',
    );
    expect(out.spam).toEqual({
      isSpam: true,
      reasons: [
        { layer: 'honeypot', rule: 'field-filled', detail: `honeypot field _gotcha was filled` },
        { layer: 'honeypot', rule: 'field-filled', detail: `honeypot field website was filled` },
      ],
    });
  });

  it('an empty or blank honeypot is not spam, and is still not data', () => {
    const out = split(
      [
        ['_gotcha', ''],
        ['_honey', '  \t '],
        ['website', ''],
        ['message', 'hi'],
      ],
      'website',
    );
    expect(out.spam).toEqual({ isSpam: false, reasons: [] });
    expect(out.data).toEqual(data);
  });
});

describe('splitReservedFields: header-bound values', () => {
  it.each([
    ['CR/LF with a Bcc header', 'a@example.com\r\nBcc: victim@example.com'],
    ['LF only', 'a@example.com\nBcc: victim@example.com'],
    ['U+2028', 'a@example.com\u2028Bcc: victim@example.com'],
    ['U+0085', 'a@ex\u0085ample.com'],
    ['an ESC control', 'a@ex\u001bample.com'],
    ['two addresses', 'a@example.com, c@example.com'],
    ['a display name', '"Evil\r\n" <a@example.com>'],
    ['no domain dot', 'a@localhost'],
    ['no at sign', 'not-an-address'],
  ])('drops a _replyto with %s', (_label, value) => {
    const out = split([
      ['_replyto', value],
      ['message', 'hi'],
    ]);
    expect(out.meta.replyTo).toBeUndefined();
    expect(out.data).toEqual(data);
  });

  it('trims a valid _replyto', () => {
    expect(split([['_replyto', '  a@example.com \r\n']]).meta.replyTo).toBe('a@example.com');
  });

  it('falls back to a valid email field for reply-to, keeping it as data', () => {
    const out = split([
      ['email', ' visitor@example.com '],
      ['message', 'hi'],
    ]);
    expect(out.meta.replyTo).toBe('visitor@example.com');
    expect(out.data).toEqual(fields(['email', ' visitor@example.com '], ['message', 'hi']));
  });

  it('prefers _replyto over the email field, and falls back when _replyto is invalid', () => {
    expect(
      split([
        ['email', 'visitor@example.com'],
        ['_replyto', 'chosen@example.com'],
      ]).meta.replyTo,
    ).toBe('chosen@example.com');
    expect(
      split([
        ['email', 'visitor@example.com'],
        ['_replyto', 'x@y.z\r\nBcc: v@example.com'],
      ]).meta.replyTo,
    ).toBe('visitor@example.com');
  });

  it('does not take an invalid email field as reply-to, but keeps it as data', () => {
    const out = split([['email', 'a@example.com\r\nBcc: v@example.com']]);
    expect(out.meta.replyTo).toBeUndefined();
    expect(out.data).toEqual(fields(['email', 'a@example.com\r\nBcc: v@example.com']));
  });

  it.each([
    ['CRLF', 'Hi\r\nBcc: victim@example.com', 'Hi Bcc: victim@example.com'],
    ['LF', 'Hi\nBcc: victim@example.com', 'Hi Bcc: victim@example.com'],
    ['U+2028 and U+0085', 'Hi\u2028Bcc:\u0085x', 'Hi Bcc: x'],
    ['tabs and padding', '  Hi\t\tthere  ', 'Hi there'],
  ])('folds a _subject with %s into one line', (_label, value, expected) => {
    const subject = split([['_subject', value]]).meta.subject;
    expect(subject).toBe(expected);
    expect(subject).not.toMatch(/[\r\n\u0085\u2028\u2029]/);
  });

  it('bounds the subject at 200 characters', () => {
    expect(split([['_subject', 's'.repeat(1_000)]]).meta.subject).toHaveLength(200);
  });

  it('filters _cc to valid addresses, at most 10, none containing whitespace or line breaks', () => {
    const out = split([['_cc', 'a@example.com, bad;  c@example.com\r\nBcc: d@example.com, "e" <e@example.com>']]);
    expect(out.meta.cc).toEqual(['a@example.com', 'c@example.com', 'd@example.com']);
    const many = Array.from({ length: 100 }, (_, i) => `u${i}@example.com`).join(',');
    expect(split([['_cc', many]]).meta.cc).toEqual(Array.from({ length: 10 }, (_, i) => `u${i}@example.com`));
  });

  it('leaves cc unset when no address is valid', () => {
    expect(split([['_cc', 'nobody, at all']]).meta.cc).toBeUndefined();
  });

  it('folds _format and _language into bounded single lines', () => {
    const out = split([
      ['_format', `plain\r\nX: y${'z'.repeat(100)}`],
      ['_language', 'en\nX-Evil: 1'],
    ]);
    expect(out.meta.format).toBe(`plain X: y${'z'.repeat(100)}`.slice(0, 50));
    expect(out.meta.language).toBe('en X-Evil: 1');
  });
});
