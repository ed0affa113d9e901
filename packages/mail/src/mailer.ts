export interface MailMessage {
  /** One recipient address (`a@b.example` or `Name <a@b.example>`). */
  to: string;
  subject: string;
  /** The plain-text body; always sent, even when `html` is given. */
  text: string;
  html?: string;
  replyTo?: string;
  /**
   * The `Message-ID` header, `<id@domain>` (no whitespace, one `@`, at most 250 characters); generated when absent.
   * Give the same value to every attempt of the same message, so that a retried send is recognisably the same mail.
   */
  messageId?: string;
  headers?: Record<string, string>;
}

const MESSAGE_ID = /^<[^<>@\s]+@[^<>@\s]+>$/;

/** Whether `value` can be a message's `Message-ID` (`<id@domain>`, no whitespace or control characters). */
export function isValidMessageId(value: string): boolean {
  return value.length <= 250 && MESSAGE_ID.test(value) && !/\p{Cc}/u.test(value);
}

/**
 * Outgoing mail. The sender address is fixed by the adapter's configuration, never by the message.
 * - `send` resolves only once the message is accepted: the SMTP server accepted it for the recipient, or the file
 *   holding it is fully written, fsynced and in place. It resolves with the message's `Message-ID` header.
 * - Otherwise `send` rejects with a `MailSendError` (the underlying error as `cause`) and nothing counts as sent:
 *   callers may retry, so delivery is at-least-once. `retryable` is false only when retrying cannot help (the
 *   server refused the recipient or the message permanently).
 * - Line breaks in `subject` or header values never start a new header (they become spaces).
 * - A given `messageId` is the sent message's `Message-ID` (and what `send` resolves with), on every attempt. An
 *   invalid one (see `isValidMessageId`) rejects with a `MailSendError` that is not retryable, and nothing is sent.
 * - Adapters never log message bodies, subjects or header values: at most the message id and an error code.
 * - `close` releases connections once pending sends settle; `send` after `close` rejects.
 */
export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): Promise<void>;
}

export class MailSendError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MailSendError';
  }
}

/** The subset of a pino `Logger` the adapters use, so this package needs no logging dependency. */
export interface MailLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}
