import nodemailer from 'nodemailer';
import SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { assertSendable, toMailOptions } from './compose.ts';
import { type Mailer, type MailLogger, MailSendError } from './mailer.ts';
import { createSendTracker } from './send-tracker.ts';

export interface SmtpMailerOptions {
  /** `smtp://user:pass@host:port` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  url: string;
  /** The sender, `Formgate <no-reply@example.com>`. */
  from: string;
  logger?: MailLogger;
  /**
   * Connections the pool keeps open at most (`SMTP_MAX_CONNECTIONS`, default 40; nodemailer's own default is 5). Mails
   * beyond it wait for a free connection, so this bounds how many sends are in flight: the notifications consumer
   * sends a batch's mails concurrently, and each send waits on several SMTP round trips, so the pool's size bounds
   * the mails per second (ADR 34: 10 connections drained ~80 submissions/s of 2 mails in embedded mode, 20 kept up
   * with 100/s; ADR 63: distributed mode needed 40). Connections open only as mails queue. Keep it within the
   * provider's limit on concurrent connections.
   */
  maxConnections?: number;
  /** Messages sent over one connection before it is replaced (`SMTP_MAX_MESSAGES`, default 1000; nodemailer's 100). */
  maxMessages?: number;
}

export const SMTP_POOL_DEFAULTS = { maxConnections: 40, maxMessages: 1000 };

interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
}

/** 5xx replies and envelope errors found before talking to the server will fail again the same way. */
function isRetryable(err: SmtpError): boolean {
  if (err.responseCode !== undefined) return err.responseCode < 500 || err.responseCode >= 600;
  return err.code !== 'EENVELOPE' && err.code !== 'EMESSAGE';
}

/** `Mailer` over SMTP with a pool of reused connections (nodemailer). */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const protocol = URL.canParse(options.url) ? new URL(options.url).protocol : '';
  if (protocol !== 'smtp:' && protocol !== 'smtps:') throw new Error('SMTP url must start with smtp:// or smtps://');
  // `createTransport({ url, pool })` would drop every option but the url, so the pool is built explicitly.
  // nodemailer's own logger stays off: at debug level it writes message contents.
  const transport = nodemailer.createTransport(
    new SMTPPool({
      pool: true,
      url: options.url,
      maxConnections: options.maxConnections ?? SMTP_POOL_DEFAULTS.maxConnections,
      maxMessages: options.maxMessages ?? SMTP_POOL_DEFAULTS.maxMessages,
      logger: false,
      debug: false,
    }),
  );
  const tracker = createSendTracker();
  const logger = options.logger;

  return {
    send(message) {
      return tracker.run(async () => {
        assertSendable(message);
        try {
          const info = await transport.sendMail(toMailOptions(message, options.from));
          // A single recipient is either accepted (resolves) or refused (rejects), but never trust a partial success.
          if (info.rejected.length > 0) throw Object.assign(new Error('recipient refused'), { code: 'EENVELOPE' });
          logger?.debug({ messageId: info.messageId }, 'mail accepted by SMTP server');
          return { messageId: info.messageId };
        } catch (err) {
          const { code, responseCode, command } = err as SmtpError;
          const retryable = isRetryable(err as SmtpError);
          logger?.warn({ err: { code, responseCode, command }, retryable }, 'mail not accepted by SMTP server');
          const reason = [code, responseCode].filter((part) => part !== undefined).join(' ') || 'unknown';
          throw new MailSendError(`SMTP send failed (${reason})`, retryable, { cause: err });
        }
      });
    },
    async close() {
      await tracker.close();
      transport.close();
    },
  };
}
