import type { Logger } from '@formgate/kit';
import { createFileMailer, createSmtpMailer, type Mailer } from '@formgate/mail';

/**
 * SMTP when `smtpUrl` is set; otherwise each message is written to `mailDir`, so a new user can finish sign-up
 * with nothing else running.
 */
export function createMailer(c: {
  smtpUrl?: string;
  mailFrom: string;
  mailDir: string;
  logger: Logger;
  /** Print links (verification, reset) in the log: the embedded, single-user laptop mode only. */
  logLinks: boolean;
}): Mailer {
  if (c.smtpUrl) return createSmtpMailer({ url: c.smtpUrl, from: c.mailFrom, logger: c.logger });
  return createFileMailer({
    dir: c.mailDir,
    from: c.mailFrom,
    onWritten: ({ file, links }) =>
      c.logger.info(
        { file },
        c.logLinks && links[0] ? `Mail written to ${file}; its link: ${links[0]}` : `Mail written to ${file}`,
      ),
  });
}
