import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { expect, onTestFinished } from 'vitest';
import { type Mailer, type MailLogger, type MailMessage, MailSendError } from '../src/mailer.ts';
import type { ParsedMail } from '../src/testing/parse-mail.ts';

export interface MailerHarness {
  mailer: Mailer;
  /** The message with this `Message-ID`, decoded from what the adapter produced (waits for it to arrive). */
  delivered(messageId: string): Promise<ParsedMail>;
  /** How many messages arrived so far. */
  count(): Promise<number>;
}

export interface MailerTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  from: string;
  create(options: { logger: MailLogger }): Promise<MailerHarness>;
  /** A mailer whose backend refuses every message (the server refuses the recipient, the directory is unwritable). */
  createRefusing(options: { logger: MailLogger }): Promise<MailerHarness>;
}

const verifyUrl = (token: string) =>
  `https://app.formgate.test/api/auth/verify-email?token=${token}&callbackURL=${encodeURIComponent('https://app.formgate.test/welcome?plan=pro&ref=mail')}`;
const longToken = 'eyJhbGciOiJIUzI1NiJ9.'.repeat(60);

function recordingLogger() {
  const calls: unknown[] = [];
  const logger: MailLogger = {
    debug: (...args) => calls.push(args),
    warn: (...args) => calls.push(args),
  };
  return { logger, calls };
}

async function open(create: MailerTarget['create']) {
  const harness = await create(recordingLogger());
  onTestFinished(() => harness.mailer.close());
  return harness;
}

async function sendAndReceive(harness: MailerHarness, message: MailMessage) {
  const { messageId } = await harness.mailer.send(message);
  return { messageId, mail: await harness.delivered(messageId) };
}

/** The guarantees of `Mailer` (see its JSDoc), checked against one adapter. */
export function runMailerContract(target: MailerTarget) {
  describeContract(`Mailer contract: ${target.name}`, target.skip, (it) => {
    it('delivers recipient, sender, non-ASCII subject and a long verification URL intact', async () => {
      const harness = await open(target.create);
      const url = verifyUrl(longToken);
      expect(url.length).toBeGreaterThan(998);
      const subject = 'Vérifiez votre adresse — Formgate ✓ '.repeat(3).trim();
      const text = `Bonjour Zoë,\n\nOuvrez ce lien pour vérifier votre adresse :\n${url}\n\n— L'équipe\n`;
      const { messageId, mail } = await sendAndReceive(harness, { to: 'zoe@example.test', subject, text });
      expect(mail.headers['message-id']).toBe(messageId);
      expect(mail.headers.to).toBe('zoe@example.test');
      expect(mail.headers.from).toBe(target.from);
      expect(mail.subject).toBe(subject);
      expect(mail.text).toBe(text);
      expect(mail.text.split('\n')).toContain(url);
    });

    it('delivers a mostly non-Latin body with its URL intact', async () => {
      const harness = await open(target.create);
      const url = verifyUrl('abc123');
      const text = `${'メールアドレスを確認してください。'.repeat(8)}\n${url}\n`;
      const { mail } = await sendAndReceive(harness, { to: 'a@example.test', subject: '確認', text });
      expect(mail.subject).toBe('確認');
      expect(mail.text).toBe(text);
    });

    it('sends html only when given, always with the text', async () => {
      const harness = await open(target.create);
      const url = verifyUrl(longToken);
      const html = `<p>Hello Zoë, <a href="${url.replaceAll('&', '&amp;')}">verify your address</a>.</p>\n`;
      const plain = await sendAndReceive(harness, { to: 'a@example.test', subject: 'plain', text: `${url}\n` });
      const rich = await sendAndReceive(harness, { to: 'a@example.test', subject: 'rich', text: `${url}\n`, html });
      expect(plain.mail.html).toBeUndefined();
      expect(plain.mail.text).toBe(`${url}\n`);
      expect(rich.mail.html).toBe(html);
      expect(rich.mail.text).toBe(`${url}\n`);
    });

    it('delivers replyTo and headers, and line breaks cannot add a header', async () => {
      const harness = await open(target.create);
      const { mail } = await sendAndReceive(harness, {
        to: 'a@example.test',
        subject: 'New submission\r\nBcc: attacker@evil.test',
        text: 'x\n',
        replyTo: 'visitor@example.test',
        headers: { 'X-Formgate-Form': 'f_123\nBcc: attacker2@evil.test' },
      });
      expect(mail.headers['reply-to']).toBe('visitor@example.test');
      expect(mail.headers['x-formgate-form']).toMatch(/^f_123\s/);
      expect(mail.subject).not.toMatch(/[\r\n]/);
      expect(mail.headers).not.toHaveProperty('bcc');
    });

    it('uses a given messageId as the Message-ID, the same on every attempt', async () => {
      const harness = await open(target.create);
      const messageId = '<3f9a0c1e5b7d2468@formgate.test>';
      const message = { to: 'a@example.test', subject: 'retried', text: 'x\n', messageId };
      const first = await harness.mailer.send(message);
      const retry = await harness.mailer.send(message);
      const other = await harness.mailer.send({ ...message, messageId: '<other-1@formgate.test>' });
      expect([first.messageId, retry.messageId, other.messageId]).toEqual([
        messageId,
        messageId,
        '<other-1@formgate.test>',
      ]);
      expect((await harness.delivered(messageId)).headers['message-id']).toBe(messageId);
      expect((await harness.delivered(other.messageId)).subject).toBe('retried');
    });

    it('rejects an invalid messageId as not retryable, and delivers nothing', async () => {
      const harness = await open(target.create);
      const invalid = ['<a@b.test>\r\nBcc: attacker@evil.test', 'no-brackets@b.test', '<no-at>', '<a b@c.test>'];
      for (const messageId of invalid) {
        await expect(
          harness.mailer.send({ to: 'a@example.test', subject: 's', text: 'x\n', messageId }),
        ).rejects.toMatchObject({ name: 'MailSendError', retryable: false });
      }
      expect(await harness.count()).toBe(0);
    });

    it('delivers every one of many concurrent sends, each with its own id', async () => {
      const harness = await open(target.create);
      const subjects = Array.from({ length: 20 }, (_, i) => `concurrent #${i}`);
      const results = await Promise.all(
        subjects.map((subject) => harness.mailer.send({ to: 'a@example.test', subject, text: `${subject}\n` })),
      );
      expect(new Set(results.map((r) => r.messageId)).size).toBe(subjects.length);
      const mails = await Promise.all(results.map((r) => harness.delivered(r.messageId)));
      expect(mails.map((mail) => mail.subject)).toEqual(subjects);
      expect(await harness.count()).toBe(subjects.length);
    });

    it('rejects with a MailSendError when the message is not accepted, and delivers nothing', async () => {
      const harness = await open(target.createRefusing);
      const sending = harness.mailer.send({ to: 'a@example.test', subject: 's', text: 't\n' });
      await expect(sending).rejects.toBeInstanceOf(MailSendError);
      expect(await harness.count()).toBe(0);
    });

    it('never logs subjects, bodies or header values, on success or failure', async () => {
      const secret = 'sekret-4f1c';
      const message = {
        to: 'a@example.test',
        subject: `subject ${secret}`,
        text: `${verifyUrl(secret)}\n`,
        headers: { 'X-Secret': secret },
      };
      const ok = recordingLogger();
      const failing = recordingLogger();
      const harness = await target.create({ logger: ok.logger });
      const refusing = await target.createRefusing({ logger: failing.logger });
      onTestFinished(async () => {
        await Promise.all([harness.mailer.close(), refusing.mailer.close()]);
      });
      await harness.mailer.send(message);
      await expect(refusing.mailer.send(message)).rejects.toThrow();
      expect(ok.calls.length + failing.calls.length).toBeGreaterThan(0);
      expect(JSON.stringify([ok.calls, failing.calls])).not.toContain(secret);
    });

    it('lets sends in flight finish on close, and rejects sends after it', async () => {
      const harness = await target.create(recordingLogger());
      const inFlight = harness.mailer.send({ to: 'a@example.test', subject: 'in flight', text: 'x\n' });
      await harness.mailer.close();
      const { messageId } = await inFlight;
      expect((await harness.delivered(messageId)).subject).toBe('in flight');
      await expect(harness.mailer.send({ to: 'a@example.test', subject: 'late', text: 'x\n' })).rejects.toBeInstanceOf(
        MailSendError,
      );
    });
  });
}
