/**
 * The copies of sent mails the process keeps beside its mailer: the file mailer's `.eml` and `.json` files in
 * embedded mode (`DATA_DIR/mail`, no SMTP). An SMTP mailer keeps none, so a process sending over SMTP has no
 * `KeptMail`.
 *
 * - `forget(messageIds)` removes every kept copy of the messages with these `Message-ID`s (`<id@domain>`, as
 *   `Mailer.send` resolved them) and resolves once they are gone. A message of which no copy is kept is no error, so
 *   calling it again is harmless.
 */
export interface KeptMail {
  forget(messageIds: string[]): Promise<void>;
}
