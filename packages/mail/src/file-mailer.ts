import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { assertSendable, toMailOptions } from './compose.ts';
import { extractLinks } from './links.ts';
import { type Mailer, type MailLogger, MailSendError } from './mailer.ts';
import { createSendTracker } from './send-tracker.ts';

export interface WrittenMail {
  /** Absolute path of the `.eml` file; the `.json` summary sits next to it. */
  file: string;
  to: string;
  subject: string;
  links: string[];
}

export interface FileMailerOptions {
  dir: string;
  from: string;
  /** Called once both files are durable; what it throws is logged, not turned into a failed send. */
  onWritten?: (info: WrittenMail) => void;
  logger?: MailLogger;
  now?: () => Date;
}

/** What the `.json` next to each `.eml` holds. */
export interface MailFileSummary {
  to: string;
  subject: string;
  text: string;
  links: string[];
  createdAt: string;
}

async function writeDurably(path: string, data: string | Buffer) {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function syncDirectory(dir: string) {
  // A rename is durable only once the directory is synced; Windows cannot open a directory for that.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeMailFiles(dir: string, base: string, eml: Buffer, summary: MailFileSummary) {
  const files = [
    [`${base}.eml`, eml],
    [`${base}.json`, JSON.stringify(summary, null, 2)],
  ] as const;
  const partial = (name: string) => join(dir, `.${name}.partial`);
  try {
    for (const [name, data] of files) await writeDurably(partial(name), data);
    // The .eml is renamed first so that whoever sees a .json can already read its message.
    for (const [name] of files) await rename(partial(name), join(dir, name));
    await syncDirectory(dir);
  } catch (err) {
    const leftovers = files.flatMap(([name]) => [partial(name), join(dir, name)]);
    await Promise.all(leftovers.map((path) => rm(path, { force: true }).catch(() => {})));
    throw err;
  }
}

const safeFileName = (messageId: string) => messageId.replace(/^<|>$/g, '').replace(/[^A-Za-z0-9._@-]/g, '_');

/**
 * `Mailer` that delivers into a directory (embedded mode, tests): each message becomes an RFC 822
 * `<timestamp>-<message-id>.eml` plus a `.json` summary (`MailFileSummary`) with the links of its text, so a new user
 * can finish sign-up from `DATA_DIR/mail` or the log. Both files are written under a temporary name, fsynced and
 * renamed. Any file-system error counts as retryable: an operator can fix the disk.
 */
export function createFileMailer(options: FileMailerOptions): Mailer {
  const { from, logger } = options;
  const dir = resolve(options.dir);
  const now = options.now ?? (() => new Date());
  const tracker = createSendTracker();
  let ready: Promise<unknown> | undefined;

  const notify = (info: WrittenMail) => {
    try {
      options.onWritten?.(info);
    } catch (err) {
      logger?.warn({ err: { message: (err as Error).message } }, 'onWritten failed after a mail file was written');
    }
  };

  return {
    send(message) {
      return tracker.run(async () => {
        assertSendable(message);
        try {
          ready ??= mkdir(dir, { recursive: true }).catch((err: unknown) => {
            ready = undefined;
            throw err;
          });
          await ready;
          const createdAt = now();
          const node = new MailComposer(toMailOptions(message, from, createdAt)).compile();
          const messageId = node.messageId();
          const links = extractLinks(message.text);
          const timestamp = createdAt.toISOString();
          // Colons are not allowed in Windows file names.
          const base = `${timestamp.replaceAll(':', '-')}-${safeFileName(messageId)}`;
          const { to, subject, text } = message;
          await writeMailFiles(dir, base, await node.build(), { to, subject, text, links, createdAt: timestamp });
          logger?.debug({ messageId }, 'mail written to file');
          notify({ file: join(dir, `${base}.eml`), to, subject, links });
          return { messageId };
        } catch (err) {
          logger?.warn({ err: { code: (err as { code?: string }).code } }, 'mail file not written');
          throw new MailSendError('writing the mail file failed', true, { cause: err });
        }
      });
    },
    async close() {
      await tracker.close();
    },
  };
}

/**
 * The mail files a file mailer wrote into `dir`, forgotten by message: `forget(messageIds)` deletes the `.eml` and
 * `.json` of every message with one of these `Message-ID`s (as `send` answered them) and syncs the directory; a
 * message with no file is no error. What an erasure (issue 31) uses to leave no copy of a mail in `DATA_DIR/mail`.
 */
export function createMailFiles(dir: string) {
  const root = resolve(dir);
  return {
    async forget(messageIds: readonly string[]) {
      if (messageIds.length === 0) return;
      const suffixes = messageIds.flatMap((id) => [`-${safeFileName(id)}.eml`, `-${safeFileName(id)}.json`]);
      const names = await readdir(root).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [] as string[];
        throw err;
      });
      const doomed = names.filter((n) => suffixes.some((s) => n.endsWith(s)));
      if (doomed.length === 0) return;
      await Promise.all(doomed.map((n) => rm(join(root, n), { force: true })));
      await syncDirectory(root);
    },
  };
}
