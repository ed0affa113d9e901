import type { Logger } from '@formgate/kit';
import { createFileMailer, createSmtpMailer, type Mailer } from '@formgate/mail';

/**
 * SMTP when `smtpUrl` is set; otherwise each message is written to `mailDir` and its links logged, so a new user
 * can finish sign-up with nothing else running.
 */
export function createMailer(c: { smtpUrl?: string; mailFrom: string; mailDir: string; logger: Logger }): Mailer {
  if (c.smtpUrl) return createSmtpMailer({ url: c.smtpUrl, from: c.mailFrom, logger: c.logger });
  return createFileMailer({
    dir: c.mailDir,
    from: c.mailFrom,
    onWritten: ({ file, to, subject, links }) =>
      c.logger.info(
        { file, to, subject, links },
        `Mail for ${to} written to ${file}${links[0] ? `; link: ${links[0]}` : ''}`,
      ),
  });
}
