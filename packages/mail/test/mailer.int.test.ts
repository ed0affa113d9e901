import { mkdtempSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createFileMailer } from '../src/file-mailer.ts';
import type { MailLogger } from '../src/mailer.ts';
import { createSmtpMailer } from '../src/smtp-mailer.ts';
import { parseMail } from '../src/testing/parse-mail.ts';
import { type SmtpTestServerOptions, startSmtpTestServer } from '../src/testing/smtp-test-server.ts';
import { type MailerHarness, runMailerContract } from './mailer.contract.ts';

const FROM = 'Formgate <no-reply@formgate.test>';
const silent: MailLogger = { debug: () => {}, warn: () => {} };

async function startServer(options: SmtpTestServerOptions = {}) {
  const server = await startSmtpTestServer(options);
  onTestFinished(() => server.stop());
  return server;
}

async function smtpHarness(logger: MailLogger, options: SmtpTestServerOptions = {}): Promise<MailerHarness> {
  const server = await startServer(options);
  return {
    mailer: createSmtpMailer({ url: server.url, from: FROM, logger }),
    delivered: (messageId) => server.waitFor((mail) => mail.headers['message-id'] === messageId),
    count: async () => server.messages.length,
  };
}

function tempRoot() {
  const root = mkdtempSync(join(tmpdir(), 'fg-mail-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  return root;
}

async function emlFiles(root: string) {
  const names = await readdir(root, { recursive: true });
  return names.filter((name) => name.endsWith('.eml')).map((name) => join(root, name));
}

function fileHarness(root: string, dir: string, logger: MailLogger): MailerHarness {
  return {
    mailer: createFileMailer({ dir, from: FROM, logger }),
    async delivered(messageId) {
      const mails = await Promise.all((await emlFiles(root)).map(async (file) => parseMail(await readFile(file))));
      const mail = mails.find((candidate) => candidate.headers['message-id'] === messageId);
      if (!mail) throw new Error(`no .eml with Message-ID ${messageId}`);
      return mail;
    },
    count: async () => (await emlFiles(root)).length,
  };
}

runMailerContract({
  name: 'smtp',
  from: FROM,
  create: ({ logger }) => smtpHarness(logger),
  createRefusing: ({ logger }) => smtpHarness(logger, { refuseRecipient: () => true }),
});

runMailerContract({
  name: 'file',
  from: FROM,
  create: async ({ logger }) => {
    const root = tempRoot();
    return fileHarness(root, join(root, 'data', 'mail'), logger);
  },
  createRefusing: async ({ logger }) => {
    const root = tempRoot();
    // A regular file where a directory is needed fails even for root, unlike permission bits.
    writeFileSync(join(root, 'not-a-dir'), '');
    return fileHarness(root, join(root, 'not-a-dir', 'mail'), logger);
  },
});

describe('SMTP Mailer', () => {
  it('sends the envelope from the configured sender to the recipient only', async () => {
    const server = await startServer();
    const mailer = createSmtpMailer({ url: server.url, from: FROM, logger: silent });
    onTestFinished(() => mailer.close());
    const { messageId } = await mailer.send({ to: 'Zoë <zoe@example.test>', subject: 's', text: 't\n' });
    const mail = await server.waitFor((m) => m.headers['message-id'] === messageId);
    expect(mail.from).toBe('no-reply@formgate.test');
    expect(mail.to).toEqual(['zoe@example.test']);
  });

  it('rejects a refused recipient as not retryable, and the pool keeps delivering', async () => {
    const server = await startServer({ refuseRecipient: (address) => address.startsWith('refused@') });
    const mailer = createSmtpMailer({ url: server.url, from: FROM, logger: silent });
    onTestFinished(() => mailer.close());
    await expect(mailer.send({ to: 'refused@example.test', subject: 'no', text: 't\n' })).rejects.toMatchObject({
      name: 'MailSendError',
      retryable: false,
    });
    const { messageId } = await mailer.send({ to: 'ok@example.test', subject: 'yes', text: 't\n' });
    expect((await server.waitFor((m) => m.headers['message-id'] === messageId)).subject).toBe('yes');
    expect(server.messages).toHaveLength(1);
  });

  it('rejects as retryable when the server cannot be reached', async () => {
    const server = await startSmtpTestServer();
    await server.stop();
    const mailer = createSmtpMailer({ url: server.url, from: FROM, logger: silent });
    onTestFinished(() => mailer.close());
    await expect(mailer.send({ to: 'a@example.test', subject: 's', text: 't\n' })).rejects.toMatchObject({
      name: 'MailSendError',
      retryable: true,
    });
  });

  it('refuses a url that is not smtp:// or smtps://', () => {
    expect(() => createSmtpMailer({ url: 'http://127.0.0.1:25', from: FROM })).toThrow(/smtp:\/\/ or smtps:\/\//);
  });
});

describe('file Mailer', () => {
  const now = () => new Date('2026-03-01T10:20:30.456Z');

  it('writes an .eml and a .json summary named after the time and message id, and reports the links', async () => {
    const dir = join(tempRoot(), 'mail');
    const onWritten = vi.fn();
    const mailer = createFileMailer({ dir, from: FROM, onWritten, now });
    const url = `https://app.formgate.test/api/auth/verify-email?token=${'t0k'.repeat(200)}&callbackURL=%2Fwelcome`;
    const text = `Verify your address: ${url}.\nHelp (https://formgate.test/help).\n`;
    const { messageId } = await mailer.send({ to: 'zoe@example.test', subject: 'Vérifiez', text });
    const base = `2026-03-01T10-20-30.456Z-${messageId.slice(1, -1)}`;
    const links = [url, 'https://formgate.test/help'];
    expect((await readdir(dir)).sort()).toEqual([`${base}.eml`, `${base}.json`]);
    expect(JSON.parse(await readFile(join(dir, `${base}.json`), 'utf8'))).toEqual({
      to: 'zoe@example.test',
      subject: 'Vérifiez',
      text,
      links,
      createdAt: '2026-03-01T10:20:30.456Z',
    });
    const eml = parseMail(await readFile(join(dir, `${base}.eml`)));
    expect(eml.headers.date).toBe('Sun, 01 Mar 2026 10:20:30 +0000');
    expect(eml.text).toBe(text);
    expect(onWritten).toHaveBeenCalledExactlyOnceWith({
      file: join(dir, `${base}.eml`),
      to: 'zoe@example.test',
      subject: 'Vérifiez',
      links,
    });
  });

  it('leaves no temporary files behind after many concurrent sends', async () => {
    const dir = join(tempRoot(), 'mail');
    const mailer = createFileMailer({ dir, from: FROM, now });
    await Promise.all(
      Array.from({ length: 25 }, (_, i) => mailer.send({ to: 'a@example.test', subject: `#${i}`, text: 'x\n' })),
    );
    const names = await readdir(dir);
    expect(names).toHaveLength(50);
    expect(names.filter((name) => !/^[^.].*\.(eml|json)$/.test(name))).toEqual([]);
  });

  it('counts the message as sent when onWritten throws, and logs that without the message', async () => {
    const dir = join(tempRoot(), 'mail');
    const warn = vi.fn();
    const onWritten = () => {
      throw new Error('log sink down');
    };
    const mailer = createFileMailer({ dir, from: FROM, onWritten, logger: { debug: () => {}, warn } });
    await expect(mailer.send({ to: 'a@example.test', subject: 'secret subject', text: 'x\n' })).resolves.toEqual({
      messageId: expect.stringMatching(/^<.+@formgate\.test>$/),
    });
    expect(await readdir(dir)).toHaveLength(2);
    expect(warn).toHaveBeenCalledOnce();
    expect(JSON.stringify(warn.mock.calls)).not.toContain('secret subject');
  });
});
