import { describe, expect, it } from 'vitest';
import { composeSubmissionNotification, type SubmissionNotificationInput } from '../src/email/index.ts';
import {
  DASHBOARD,
  FORM,
  fileLink,
  headerNames,
  hrefs,
  SUBMISSION_URL,
  startMailbox,
  submission,
} from './email-fixtures.ts';

const input = (overrides: Partial<SubmissionNotificationInput> = {}): SubmissionNotificationInput => ({
  form: FORM,
  submission: submission(),
  recipient: 'team@acme.test',
  subjectTemplate: null,
  dashboardUrl: DASHBOARD,
  fileLink,
  ...overrides,
});

const ALLOWED_HEADERS = [
  'content-type',
  'from',
  'to',
  'reply-to',
  'subject',
  'message-id',
  'date',
  'mime-version',
  'auto-submitted',
  'x-auto-response-suppress',
];

// Lines of the text part that may start at the left margin: our own layout. Names follow `* `, values are indented.
const LAYOUT_LINE =
  /^(|New submission to Contact|Received: .*|Origin: .*|Referer: .*|Fields|Files \(the links expire\)|\d+ more fields: see the full submission\.|\* .*| {4}.*|Open it in Formgate: https:\/\/app\.formgate\.test\/dashboard\/forms\/contact\/submissions\/s_1|See the full submission: https:\/\/app\.formgate\.test\/dashboard\/forms\/contact\/submissions\/s_1)$/;

const hostile = submission({
  fields: [
    { name: 'name', value: '<script>alert(1)</script>' },
    { name: 'website', value: 'javascript:alert(1)' },
    { name: '<img src=x onerror=alert(2)>', value: '<img src=x onerror=alert(3)>' },
    {
      name: 'message',
      value: 'line 1\r\nBcc: evil@evil.test\n* forged\nSee the full submission: https://evil.test/phish\u2028Origin: x',
    },
    { name: 'note\r\nBcc: attacker@evil.test', value: '{{form}} {{subject}} \u202etxt.exe' },
    { name: 'See the full submission: https://evil.test/', value: '"><a href="https://evil.test/">x</a>' },
  ],
  files: [
    { field: 'cv', blobKey: 'b1', filename: 'cv\r\nBcc: x@evil.test.pdf', contentType: 'application/pdf', size: 12 },
    { field: 'cv', blobKey: 'b2', filename: '"><script>alert(4)</script>.pdf', contentType: 'text/html', size: 9 },
  ],
  meta: { subject: 'Hi\r\nBcc: attacker@evil.test', replyTo: 'visitor@example.test\r\nBcc: attacker@evil.test' },
});

describe('composeSubmissionNotification, through SMTP', () => {
  it('shows the form, every field in order, the time, origin, referer and a link to the submission', async () => {
    const mailbox = await startMailbox();
    const mail = await mailbox.deliver(await composeSubmissionNotification(input()));
    expect(mail.to).toEqual(['team@acme.test']);
    expect(mail.subject).toBe('New submission to Contact');
    expect(mail.text).toBe(
      [
        'New submission to Contact',
        '',
        'Received: Sun, 01 Mar 2026 10:20:30 GMT',
        'Origin: https://shop.example.test',
        'Referer: https://shop.example.test/contact?x=1',
        `Open it in Formgate: ${SUBMISSION_URL}`,
        '',
        'Fields',
        '',
        '* name',
        '    Zoë',
        '* message',
        '    Hello,',
        '    I would like a quote.',
        '',
        `See the full submission: ${SUBMISSION_URL}`,
        '',
      ].join('\n'),
    );
    const html = mail.html;
    expect(html).toMatch(/^<!DOCTYPE html/);
    for (const part of [
      'New submission to Contact',
      'Zoë',
      'Hello,\nI would like a quote.',
      'https://shop.example.test',
    ]) {
      expect(html).toContain(part);
    }
    expect(html.indexOf('>name<')).toBeLessThan(html.indexOf('>message<'));
    expect(html).toContain('Sun, 01 Mar 2026 10:20:30 GMT');
    expect(hrefs(html)).toEqual([SUBMISSION_URL]);
  });

  it('keeps every hostile value inert in HTML and text, and no value adds a header', async () => {
    const mailbox = await startMailbox();
    const message = await composeSubmissionNotification(
      input({ submission: hostile, subjectTemplate: '[{{form}}] {{subject}}' }),
    );
    const mail = await mailbox.deliver(message);

    expect(headerNames(mail.headerBlock).every((name) => ALLOWED_HEADERS.includes(name))).toBe(true);
    expect(mail.headers).not.toHaveProperty('bcc');
    expect(mail.headers).not.toHaveProperty('reply-to');
    expect(mail.to).toEqual(['team@acme.test']);
    expect(mail.subject).toBe('[Contact] Hi Bcc: attacker@evil.test');

    const html = mail.html;
    expect(html).not.toMatch(/<script|<img|<a href="https:\/\/evil|\u202e/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(html).toContain('{{form}} {{subject}} txt.exe');
    const links = hrefs(html);
    expect(links.every((href) => href === SUBMISSION_URL || href.startsWith('https://files.formgate.test/d/'))).toBe(
      true,
    );
    expect(links).toHaveLength(3);

    const lines = mail.text.split('\n');
    expect(lines.filter((line) => !LAYOUT_LINE.test(line))).toEqual([]);
    expect(lines.filter((line) => line.startsWith('See the full submission:'))).toEqual([
      `See the full submission: ${SUBMISSION_URL}`,
    ]);
    expect(lines).toContain('* note Bcc: attacker@evil.test');
    expect(lines).toContain('    See the full submission: https://evil.test/phish');
    expect(lines).toContain('    Origin: x');
    expect(lines).toContain('    {{form}} {{subject}} txt.exe');
    expect(lines).toContain('* cv Bcc: x@evil.test.pdf (12 B)');
  });

  it('lists files as their expiring links in both parts', async () => {
    const mailbox = await startMailbox();
    const files = [
      { field: 'cv', blobKey: 'blob 1', filename: 'cv.pdf', contentType: 'application/pdf', size: 123_456 },
      { field: 'photo', blobKey: 'blob2', filename: 'me.png', contentType: 'image/png', size: 999 },
    ];
    const mail = await mailbox.deliver(
      await composeSubmissionNotification(input({ submission: submission({ files }) })),
    );
    const cv = 'https://files.formgate.test/d/blob%201?expires=1900000000&sig=abc';
    const photo = 'https://files.formgate.test/d/blob2?expires=1900000000&sig=abc';
    expect(mail.text).toContain(
      ['Files (the links expire)', '', '* cv.pdf (120.6 KB)', `    ${cv}`, '* me.png (999 B)', `    ${photo}`].join(
        '\n',
      ),
    );
    expect(hrefs(mail.html)).toEqual([cv, photo, SUBMISSION_URL]);
    expect(mail.html).toMatch(/<a href="https:\/\/files\.formgate\.test\/d\/blob%201\?[^"]*"[^>]*>cv\.pdf<\/a>/);
  });

  it('cuts values over 2,000 characters and fields past the 100th, with a link to the whole submission', async () => {
    const mailbox = await startMailbox();
    const long = `${'a'.repeat(1_999)}é${'b'.repeat(500)}END`;
    const fields = [
      { name: 'long', value: long },
      ...Array.from({ length: 119 }, (_, i) => ({ name: `f${i + 2}`, value: `v${i + 2}` })),
    ];
    const mail = await mailbox.deliver(
      await composeSubmissionNotification(input({ submission: submission({ fields }) })),
    );
    expect(mail.text).toContain(
      `* long\n    ${'a'.repeat(1_999)}é\n    [cut: 503 more characters, see the full submission]\n* f2\n`,
    );
    expect(mail.text).not.toContain('END');
    expect(mail.text).toContain('* f100\n    v100\n\n20 more fields: see the full submission.\n');
    expect(mail.text).not.toContain('f101');
    expect(mail.html).not.toContain('END');
    expect(mail.html).not.toContain('f101');
    expect(mail.html).toContain('20<!-- --> more fields: <a href');
    expect(hrefs(mail.html)).toEqual([SUBMISSION_URL, SUBMISSION_URL, SUBMISSION_URL]);
  });

  it('sets Reply-To to the submitter only when it is a single valid address', async () => {
    const mailbox = await startMailbox();
    const replyToOf = async (data: ReturnType<typeof submission>) => {
      const mail = await mailbox.deliver(
        await composeSubmissionNotification(input({ submission: data, recipient: `${data.submissionId}@acme.test` })),
      );
      return mail.headers['reply-to'];
    };
    const emailField = [{ name: 'email', value: 'field@example.test' }];
    expect(await replyToOf(submission({ submissionId: 'r1', meta: { replyTo: 'visitor@example.test' } }))).toBe(
      'visitor@example.test',
    );
    expect(await replyToOf(submission({ submissionId: 'r2', fields: emailField }))).toBe('field@example.test');
    expect(
      await replyToOf(submission({ submissionId: 'r3', meta: { replyTo: 'a@example.test, b@example.test' } })),
    ).toBeUndefined();
    expect(
      await replyToOf(submission({ submissionId: 'r4', meta: { replyTo: 'Boss <boss@acme.test> evil@evil.test' } })),
    ).toBeUndefined();
    expect(
      await replyToOf(
        submission({ submissionId: 'r5', fields: [{ name: 'email', value: 'a@example.test\r\nBcc: b@evil.test' }] }),
      ),
    ).toBeUndefined();
    expect(await replyToOf(submission({ submissionId: 'r6' }))).toBeUndefined();
  });

  it('sends the same Message-ID for the same submission and recipient, a different one otherwise', async () => {
    const mailbox = await startMailbox();
    const idOf = async (overrides: Partial<SubmissionNotificationInput>) =>
      (await mailbox.deliver(await composeSubmissionNotification(input(overrides)))).headers['message-id'];
    const first = await idOf({});
    expect(first).toMatch(/^<[0-9a-f]{32}@app\.formgate\.test>$/);
    expect(await idOf({ subjectTemplate: 'retried with another subject' })).toBe(first);
    expect(await idOf({ recipient: 'TEAM@acme.test' })).toBe(first);
    const others = [
      await idOf({ recipient: 'other@acme.test' }),
      await idOf({ submission: submission({ submissionId: 's_2' }) }),
      await idOf({ messageIdDomain: 'mail.formgate.test' }),
    ];
    expect(new Set([first, ...others]).size).toBe(4);
    expect(others[2]).toBe(first?.replace('app.formgate.test', 'mail.formgate.test'));
  });

  it('refuses a recipient that is not one address, and a file link or dashboard URL that is not http(s)', async () => {
    await expect(composeSubmissionNotification(input({ recipient: 'a@acme.test, b@evil.test' }))).rejects.toThrow(
      TypeError,
    );
    const files = [{ field: 'cv', blobKey: 'b', filename: 'cv.pdf', contentType: 'application/pdf', size: 1 }];
    await expect(
      composeSubmissionNotification(
        input({ submission: submission({ files }), fileLink: () => 'javascript:alert(1)' }),
      ),
    ).rejects.toThrow(TypeError);
    await expect(composeSubmissionNotification(input({ dashboardUrl: 'javascript:alert(1)//' }))).rejects.toThrow(
      TypeError,
    );
  });
});
