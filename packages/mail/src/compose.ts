import type Mail from 'nodemailer/lib/mailer/index.js';
import { isValidMessageId, type MailMessage, MailSendError } from './mailer.ts';

/**
 * nodemailer options for a message. Fields are copied one by one: a caller's object carrying extra nodemailer options
 * (`attachments: [{ path }]` reads local files, `bcc` adds recipients) must not reach the composer.
 */
export function toMailOptions(message: MailMessage, from: string, date?: Date): Mail.Options {
  const { to, subject, text, html, replyTo, messageId, headers } = message;
  return { from, to, subject, text, html, replyTo, messageId, headers, date };
}

/** Rejects a message the adapters must not try to send; retrying the same message cannot help. */
export function assertSendable(message: MailMessage): void {
  if (message.messageId !== undefined && !isValidMessageId(message.messageId)) {
    throw new MailSendError('invalid messageId: expected <id@domain>', false);
  }
}
