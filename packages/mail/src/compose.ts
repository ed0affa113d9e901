import type Mail from 'nodemailer/lib/mailer/index.js';
import type { MailMessage } from './mailer.ts';

/**
 * nodemailer options for a message. Fields are copied one by one: a caller's object carrying extra nodemailer options
 * (`attachments: [{ path }]` reads local files, `bcc` adds recipients) must not reach the composer.
 */
export function toMailOptions(message: MailMessage, from: string, date?: Date): Mail.Options {
  const { to, subject, text, html, replyTo, headers } = message;
  return { from, to, subject, text, html, replyTo, headers, date };
}
