import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { extractLinks } from '@formgate/mail';
import { parseMail } from '@formgate/mail/testing';
import { SMTPServer } from 'smtp-server';

/** One message the sink accepted: when (bench clock, `performance.now()`), to whom, and what it links to. */
export interface SunkMail {
  /** `performance.now()` of the bench process when the whole message had arrived, just before the `250` reply. */
  acceptedAt: number;
  /** Envelope recipients (`RCPT TO`), lower-cased. */
  to: string[];
  subject: string;
  /** The http(s) links of the text part. */
  links: string[];
}

export interface SmtpSink {
  /** `smtp://bench:bench@127.0.0.1:<port>` (any credentials are accepted, no TLS). */
  url: string;
  /** Called for every accepted message, in order of arrival. */
  onMail(listener: ((mail: SunkMail) => void) | null): void;
  /** The first link of the next (or an already received) mail to `to` whose subject matches; rejects after `timeoutMs`. */
  waitForLink(to: string, subject: RegExp, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/**
 * P12's local SMTP server (`smtp-server`) in the bench process, the same clock as the load generator: it records
 * the moment each message is accepted and the links of its text part, and keeps nothing else (the P12 mails are
 * not stored, so a long run does not grow the bench's memory).
 */
export async function startSmtpSink(): Promise<SmtpSink> {
  let listener: ((mail: SunkMail) => void) | null = null;
  /** Mails that may carry a link someone waits for (sign-up and address verification); never the P12 mails. */
  const linkMails: SunkMail[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    // The app's pooled mailer keeps idle connections open: do not wait the default 30 s for them on stop.
    closeTimeout: 100,
    // Up to 5 pooled connections per mailer; two modes' mailers may be connected at once.
    maxClients: 100,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onData(stream, session, callback) {
      buffer(stream)
        .then((raw) => {
          const acceptedAt = performance.now();
          const parsed = parseMail(raw);
          const mail: SunkMail = {
            acceptedAt,
            to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
            subject: parsed.subject,
            links: extractLinks(parsed.text),
          };
          if (listener) listener(mail);
          else linkMails.push(mail);
        })
        .then(() => callback(), callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // Errors of one client connection (a reset at shutdown) must not crash the bench.
  server.on('error', () => undefined);
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://bench:bench@127.0.0.1:${port}`,
    onMail(l) {
      listener = l;
    },
    async waitForLink(to, subject, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = linkMails.findIndex((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject));
        const link = index >= 0 ? linkMails[index]?.links[0] : undefined;
        if (link) {
          linkMails.splice(index, 1);
          return link;
        }
        if (Date.now() > deadline) throw new Error(`no "${subject}" mail for ${to} reached the SMTP sink`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
