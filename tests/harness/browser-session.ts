import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '@formgate/kit/testing';

export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read whatever JSON an endpoint answers, and assert on it.
  body: any;
}

/**
 * A client that behaves like the dashboard in a browser: cookies kept, JSON bodies, the product's own Origin on
 * every request. `call` never throws on an HTTP status; tests assert it.
 */
export function createBrowserSession(baseUrl: string, origin = baseUrl) {
  const cookies = new Map<string, string>();
  const session = {
    cookies,
    async call(
      method: string,
      path: string,
      body?: unknown,
      extraHeaders: Record<string, string> = {},
    ): Promise<Reply> {
      const headers: Record<string, string> = { accept: 'application/json', origin, ...extraHeaders };
      if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(new URL(path, baseUrl), {
        method,
        headers,
        redirect: 'manual',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      for (const line of res.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        const value = pair.slice(eq + 1).trim();
        if (/max-age=0/i.test(line) || value === '') cookies.delete(pair.slice(0, eq).trim());
        else cookies.set(pair.slice(0, eq).trim(), value);
      }
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {}
      return { status: res.status, headers: res.headers, body: parsed };
    },
  };
  return session;
}

export type BrowserSession = ReturnType<typeof createBrowserSession>;

export interface MailRecord {
  to: string;
  subject: string;
  text: string;
  links: string[];
}

/** Messages the file mailer wrote to `DATA_DIR/mail` for `to`, oldest first. */
export function readMailbox(dataDir: string, to: string): MailRecord[] {
  const dir = join(dataDir, 'mail');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {}
  return files
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as MailRecord)
    .filter((m) => m.to === to);
}

/** Waits for a message to `to` whose subject matches, and returns its first link. */
export async function waitForMailLink(dataDir: string, to: string, subject: RegExp): Promise<string> {
  return eventually(async () => {
    const mail = readMailbox(dataDir, to)
      .filter((m) => subject.test(m.subject))
      .at(-1);
    if (!mail?.links[0]) throw new Error(`no "${subject}" mail for ${to} yet`);
    return mail.links[0];
  });
}
