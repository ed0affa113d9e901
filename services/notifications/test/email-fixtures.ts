import type { SubmissionFile, SubmissionReceived } from '@formgate/contracts';
import { createSmtpMailer, type MailMessage } from '@formgate/mail';
import { startSmtpTestServer } from '@formgate/mail/testing';
import { onTestFinished } from 'vitest';

export const DASHBOARD = 'https://app.formgate.test';
export const FORM = { id: 'f_1', name: 'Contact', slug: 'contact' };
export const SUBMISSION_URL = `${DASHBOARD}/dashboard/forms/contact/submissions/s_1`;

export const fileLink = (file: SubmissionFile) =>
  `https://files.formgate.test/d/${encodeURIComponent(file.blobKey)}?expires=1900000000&sig=abc`;

export function submission(overrides: Partial<SubmissionReceived['data']> = {}): SubmissionReceived['data'] {
  return {
    submissionId: 's_1',
    formId: FORM.id,
    orgId: 'o_1',
    receivedAt: '2026-03-01T10:20:30.000Z',
    fields: [
      { name: 'name', value: 'Zoë' },
      { name: 'message', value: 'Hello,\nI would like a quote.' },
    ],
    files: [],
    meta: {},
    spam: { isSpam: false, reasons: [] },
    held: false,
    origin: 'https://shop.example.test',
    referer: 'https://shop.example.test/contact?x=1',
    ...overrides,
  };
}

/** A real SMTP server and the SMTP mailer: `deliver` sends a composed message and returns it as received. */
export async function startMailbox() {
  const server = await startSmtpTestServer();
  const mailer = createSmtpMailer({ url: server.url, from: 'Formgate <no-reply@formgate.test>' });
  onTestFinished(async () => {
    await mailer.close();
    await server.stop();
  });
  return {
    server,
    async deliver(message: MailMessage) {
      const { messageId } = await mailer.send(message);
      const mail = await server.waitFor((received) => received.headers['message-id'] === messageId);
      // The header block as sent: everything before the first empty line.
      const headerBlock = mail.raw.slice(0, mail.raw.search(/\r?\n\r?\n/));
      return { ...mail, messageId, headerBlock, html: mail.html ?? '' };
    },
  };
}

/** Every `href` of an HTML document, unescaped. */
export function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => (match[1] ?? '').replaceAll('&amp;', '&'));
}

/** Header names as they start lines of the header block (lower-cased). */
export function headerNames(headerBlock: string): string[] {
  return headerBlock
    .split(/\r?\n/)
    .filter((line) => /^[^\s:]+:/.test(line))
    .map((line) => line.slice(0, line.indexOf(':')).toLowerCase());
}
