import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { SMTPServer } from 'smtp-server';
import { type ParsedMail, parseMail } from './parse-mail.ts';

export interface ReceivedMail extends ParsedMail {
  /** Envelope sender (`MAIL FROM`). */
  from: string;
  /** Envelope recipients (`RCPT TO`). */
  to: string[];
  raw: string;
}

export interface SmtpTestServer {
  /** `smtp://test:test@127.0.0.1:<port>`; any credentials (or none) are accepted. */
  url: string;
  port: number;
  /** Every accepted message, in order of arrival. */
  messages: ReceivedMail[];
  /** The first message, already received or still to come, that matches; rejects after `timeoutMs` (5 s). */
  waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

export interface SmtpTestServerOptions {
  /**
   * Recipients refused at `RCPT TO`, to test refusals: `true` answers `550` (permanent), a number answers that reply
   * code (e.g. `421` or `450`, temporary). Asked again for every message, so a test can refuse and then accept.
   */
  refuseRecipient?: (address: string) => boolean | number;
  /**
   * Asked once a message's DATA has arrived: the server answers (and records the message) only when the promise
   * resolves — a stalled SMTP server, to test that nothing else waits for it.
   */
  beforeDataReply?: () => Promise<void> | undefined;
}

interface Waiter {
  predicate: (mail: ReceivedMail) => boolean;
  resolve: (mail: ReceivedMail) => void;
}

/** A plain-text SMTP server on 127.0.0.1 that records what it receives, for tests. */
export async function startSmtpTestServer(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
  const messages: ReceivedMail[] = [];
  let waiters: Waiter[] = [];

  const receive = (mail: ReceivedMail) => {
    messages.push(mail);
    const matched = waiters.filter((waiter) => waiter.predicate(mail));
    waiters = waiters.filter((waiter) => !matched.includes(waiter));
    for (const waiter of matched) waiter.resolve(mail);
  };

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    // Pooled clients keep idle connections open: do not wait the default 30 s for them on stop.
    closeTimeout: 100,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    onRcptTo(address, _session, callback) {
      const refusal = options.refuseRecipient?.(address.address);
      if (!refusal) return callback();
      const responseCode = refusal === true ? 550 : refusal;
      const text = responseCode < 500 ? 'try again later' : 'mailbox unavailable';
      callback(Object.assign(new Error(text), { responseCode }));
    },
    onData(stream, session, callback) {
      buffer(stream)
        .then(async (raw) => {
          await options.beforeDataReply?.();
          const mailFrom = session.envelope.mailFrom;
          receive({
            ...parseMail(raw),
            from: mailFrom ? mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: raw.toString('utf8'),
          });
        })
        .then(() => callback(), callback);
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // A client that goes away mid-session (a process killed by a reliability test) resets its socket: that is the
  // scenario, not a failure of the server, and unheard it would end the test run as an unhandled error.
  server.on('error', () => {});
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://test:test@127.0.0.1:${port}`,
    port,
    messages,
    waitFor(predicate, timeoutMs = 5_000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve: (mail) => {
            clearTimeout(timer);
            resolve(mail);
          },
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((other) => other !== waiter);
          reject(new Error(`no matching mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
