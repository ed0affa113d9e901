import type { Logger } from '@formgate/kit';
import { createFileMailer, createSmtpMailer, type Mailer } from '@formgate/mail';

/**
 * SMTP when `smtpUrl` is set; otherwise each message is written to `mailDir`, so a new user can finish sign-up
 * with nothing else running.
 */
export function createMailer(c: {
  smtpUrl?: string;
  mailFrom: string;
  /** The SMTP pool's size (`SMTP_MAX_CONNECTIONS`, `SMTP_MAX_MESSAGES`); the mail module's defaults without it. */
  smtpPool?: { maxConnections: number; maxMessages: number };
  mailDir: string;
  logger: Logger;
  /** Print links (verification, reset) in the log: the embedded, single-user laptop mode only. */
  logLinks: boolean;
}): Mailer {
  if (c.smtpUrl) return createSmtpMailer({ url: c.smtpUrl, from: c.mailFrom, logger: c.logger, ...c.smtpPool });
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
