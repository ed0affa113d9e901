import { describe, expect, it } from 'vitest';
import {
  type AutoresponseInput,
  composeAutoresponse,
  composeRecipientVerification,
  composeSubmissionNotification,
} from '../src/email/index.ts';
import { DASHBOARD, FORM, fileLink, headerNames, hrefs, startMailbox, submission } from './email-fixtures.ts';

const autoresponse = (overrides: Partial<AutoresponseInput> = {}): AutoresponseInput => ({
  form: FORM,
  submission: { submissionId: 's_1' },
  to: 'visitor@example.test',
  text: 'Thanks for writing!\nWe answer within a day.\n\n\n<b>The Acme team</b> {{form}}\r\n',
  messageIdDomain: 'formgate.test',
  ...overrides,
});

describe('composeAutoresponse, through SMTP', () => {
  it("sends the form's fixed text with its paragraphs, escaped, as an auto-reply", async () => {
    const mailbox = await startMailbox();
    const mail = await mailbox.deliver(await composeAutoresponse(autoresponse()));
    expect(mail.to).toEqual(['visitor@example.test']);
    expect(mail.subject).toBe('Re: Contact');
    expect(mail.headers['auto-submitted']).toBe('auto-replied');
    expect(mail.headers).not.toHaveProperty('reply-to');
    expect(mail.text).toBe('Thanks for writing!\nWe answer within a day.\n\n<b>The Acme team</b> {{form}}\n');
    expect(mail.html).toMatch(/<p[^>]*>Thanks for writing!\nWe answer within a day\.<\/p><p[^>]*>&lt;b&gt;The Acme/);
    expect(mail.html).not.toContain('<b>');
    expect(hrefs(mail.html)).toEqual([]);
  });

  it('has one Message-ID per submission and address, apart from the notification', async () => {
    const mailbox = await startMailbox();
    const idOf = async (overrides: Partial<AutoresponseInput>) =>
      (await mailbox.deliver(await composeAutoresponse(autoresponse(overrides)))).headers['message-id'];
    const first = await idOf({});
    expect(first).toMatch(/^<[0-9a-f]{32}@formgate\.test>$/);
    expect(await idOf({ text: 'another text' })).toBe(first);
    const notification = await composeSubmissionNotification({
      form: FORM,
      submission: submission(),
      recipient: 'visitor@example.test',
      subjectTemplate: null,
      dashboardUrl: DASHBOARD,
      fileLink,
      messageIdDomain: 'formgate.test',
    });
    const others = [
      await idOf({ to: 'other@example.test' }),
      await idOf({ submission: { submissionId: 's_2' } }),
      notification.messageId,
    ];
    expect(new Set([first, ...others]).size).toBe(4);
  });

  it('cannot be turned into a header injection by the form name, nor sent to more than one address', async () => {
    const mailbox = await startMailbox();
    const mail = await mailbox.deliver(
      await composeAutoresponse(autoresponse({ form: { id: 'f', name: 'Contact\r\nBcc: x@evil.test' } })),
    );
    expect(mail.subject).toBe('Re: Contact Bcc: x@evil.test');
    expect(headerNames(mail.headerBlock)).not.toContain('bcc');
    for (const to of ['a@example.test, b@example.test', 'Boss <a@example.test>', 'a@example.test\r\nBcc: b@x.test']) {
      await expect(composeAutoresponse(autoresponse({ to }))).rejects.toThrow(TypeError);
    }
  });
});

describe('composeRecipientVerification, through SMTP', () => {
  const link = 'https://app.formgate.test/api/v1/notification-emails/verify?token=abc.def&x=1';

  it('asks to confirm the address for the organization, with the expiring link in both parts', async () => {
    const mailbox = await startMailbox();
    const message = await composeRecipientVerification({
      email: 'team@acme.test',
      link,
      expiresAt: '2026-03-02T10:00:00.000Z',
      orgName: 'Acme <script>alert(1)</script>',
    });
    const mail = await mailbox.deliver(message);
    expect(mail.to).toEqual(['team@acme.test']);
    expect(mail.subject).toBe('Confirm team@acme.test for Acme <script>alert(1)</script> notifications');
    expect(mail.text.split('\n')).toContain(link);
    expect(mail.text).toContain('it works until Mon, 02 Mar 2026 10:00:00 GMT');
    expect(hrefs(mail.html)).toEqual([link, link]);
    expect(mail.html).not.toContain('<script');
    expect(mail.html).toContain('Acme &lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('refuses an address that is not exactly one, and a link that is not http(s)', async () => {
    const base = { email: 'team@acme.test', link, expiresAt: '2026-03-02T10:00:00.000Z', orgName: 'Acme' };
    await expect(composeRecipientVerification({ ...base, email: 'a@acme.test, b@acme.test' })).rejects.toThrow(
      TypeError,
    );
    await expect(composeRecipientVerification({ ...base, link: 'javascript:alert(1)' })).rejects.toThrow(TypeError);
  });
});
