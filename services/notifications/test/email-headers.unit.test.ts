import { describe, expect, it } from 'vitest';
import { renderSubject, singleAddress, submissionMessageId, submitterAddress } from '../src/email/headers.ts';
import { cleanText, singleLine, truncate } from '../src/email/plain-text.ts';
import { submissionText, toSubmissionView } from '../src/email/submission-view.ts';
import { DASHBOARD, FORM, fileLink, SUBMISSION_URL, submission } from './email-fixtures.ts';

describe('renderSubject', () => {
  it('fills {{form}} and {{subject}} once, so placeholders inside values stay text', () => {
    expect(renderSubject('[{{form}}] {{ subject }}', { form: 'Contact {{subject}}', subject: 'Hi {{form}}' })).toBe(
      '[Contact {{subject}}] Hi {{form}}',
    );
  });

  it('defaults to "New submission to {{form}}", also when the template leaves nothing', () => {
    expect(renderSubject(null, { form: 'Contact' })).toBe('New submission to Contact');
    expect(renderSubject('{{subject}}', { form: 'Contact', subject: ' \r\n ' })).toBe('New submission to Contact');
    expect(renderSubject('{{subject}}', { form: 'Contact', subject: 'Quote' })).toBe('Quote');
  });

  it('removes line breaks and other control characters and caps the subject at 200 characters', () => {
    const subject = renderSubject('{{subject}}', {
      form: 'F',
      subject: 'a\r\nBcc: x@evil.test\u0085b\u2028c\u0000d\u202e',
    });
    expect(subject).toBe('a Bcc: x@evil.test b cd');
    const long = renderSubject('{{form}}: {{subject}}', { form: 'F', subject: '😀'.repeat(300) });
    expect(Array.from(long)).toHaveLength(200);
    expect(long.endsWith('😀')).toBe(true);
  });
});

describe('singleAddress and submitterAddress', () => {
  it.each([
    ['visitor@example.test', 'visitor@example.test'],
    ['  visitor@example.test ', 'visitor@example.test'],
    ['a@example.test, b@example.test', undefined],
    ['a@example.test;b@example.test', undefined],
    ['Boss <boss@acme.test>', undefined],
    ['"boss@acme.test" <evil@evil.test>', undefined],
    ['a@example.test\r\nBcc: b@evil.test', undefined],
    ['a@example.test\n', undefined],
    ['a@example.test (comment)', undefined],
    ['not an address', undefined],
    [`${'a'.repeat(64)}@${'b'.repeat(251)}.test`, undefined],
    [undefined, undefined],
  ])('%j → %j', (value, expected) => {
    expect(singleAddress(value)).toBe(expected);
  });

  it('takes _replyto first, then the email field, whichever is valid', () => {
    const email = [{ name: 'Email', value: 'field@example.test' }];
    expect(submitterAddress({ meta: { replyTo: 'meta@example.test' }, fields: email })).toBe('meta@example.test');
    expect(submitterAddress({ meta: { replyTo: 'a@x.test, b@x.test' }, fields: email })).toBe('field@example.test');
    expect(submitterAddress({ meta: {}, fields: [{ name: 'email', value: 'nope' }] })).toBeUndefined();
    expect(submitterAddress({ meta: {}, fields: [] })).toBeUndefined();
  });
});

describe('submissionMessageId', () => {
  const base = {
    submissionId: 's_1',
    purpose: 'notification',
    recipient: 'a@acme.test',
    domain: 'formgate.test',
  } as const;

  it('is stable per (submission, purpose, recipient) and differs when any of them does', () => {
    const id = submissionMessageId(base);
    expect(id).toMatch(/^<[0-9a-f]{32}@formgate\.test>$/);
    expect(submissionMessageId({ ...base, recipient: ' A@ACME.test' })).toBe(id);
    const others = [
      submissionMessageId({ ...base, submissionId: 's_2' }),
      submissionMessageId({ ...base, purpose: 'autoresponse' }),
      submissionMessageId({ ...base, recipient: 'b@acme.test' }),
      // No ambiguity between the parts: "s_1" + "x" vs "s_1x" + "".
      submissionMessageId({ ...base, submissionId: 's_1","notification', recipient: 'a@acme.test' }),
      // A resend is a message of its own; each resend another one.
      submissionMessageId({ ...base, resendId: 'd_2' }),
      submissionMessageId({ ...base, resendId: 'd_3' }),
    ];
    expect(new Set([id, ...others]).size).toBe(7);
    expect(submissionMessageId({ ...base, resendId: 'd_2' })).toBe(others[4]);
  });

  it('refuses a domain that is not a host name', () => {
    expect(() => submissionMessageId({ ...base, domain: 'evil.test>\r\nBcc: x@evil.test' })).toThrow(TypeError);
  });
});

describe('plain text', () => {
  it('keeps one kind of line break and drops controls and bidi overrides', () => {
    expect(cleanText('a\r\nb\rc\u2028d\u0085e\tf\u0007g\u202eh\u2066i')).toBe('a\nb\nc\nd\ne    fghi');
    expect(singleLine('  a \n\n b  ', 10)).toBe('a b');
  });

  it('truncates by code points, never inside a surrogate pair', () => {
    expect(truncate('ab😀cd', 3)).toEqual({ text: 'ab😀', omitted: 2 });
    expect(truncate('😀😀', 2)).toEqual({ text: '😀😀', omitted: 0 });
  });
});

describe('the text part of a notification', () => {
  const pieces = [
    '\r\n',
    '\n',
    '\r',
    '\u2028',
    '\u0085',
    '\v',
    '* ',
    'See the full submission: ',
    'Fields',
    '    ',
    'x',
  ];
  // A deterministic stream of hostile strings made of line breaks and pieces of our own layout.
  const hostileString = (seed: number) =>
    Array.from({ length: 12 }, (_, i) => pieces[(seed * 7 + i * i * 3 + i) % pieces.length]).join('');

  it('starts no line with anything but its own layout, whatever the names, values and file names', () => {
    const data = submission({
      fields: Array.from({ length: 40 }, (_, i) => ({ name: hostileString(i), value: hostileString(i + 100) })),
      files: [{ field: 'f', blobKey: 'k', filename: hostileString(7), contentType: 'x', size: 1 }],
      origin: hostileString(3),
      referer: hostileString(4),
    });
    const view = toSubmissionView({ form: FORM, submission: data, dashboardUrl: DASHBOARD, fileLink });
    const lines = submissionText(view).split('\n');
    const names = lines.filter((line) => line.startsWith('* '));
    expect(names).toHaveLength(41);
    const ours = lines.filter((line) => !line.startsWith('* ') && !line.startsWith('    '));
    expect(ours).toEqual([
      'New submission to Contact',
      '',
      'Received: Sun, 01 Mar 2026 10:20:30 GMT',
      `Origin: ${singleLine(hostileString(3), 100)}`,
      `Referer: ${singleLine(hostileString(4), 100)}`,
      `Open it in Formgate: ${SUBMISSION_URL}`,
      '',
      'Fields',
      '',
      '',
      'Files (the links expire)',
      '',
      '',
      `See the full submission: ${SUBMISSION_URL}`,
      '',
    ]);
  });
});
