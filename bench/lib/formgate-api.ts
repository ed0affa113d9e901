import { createAccounts } from '../../tests/harness/accounts.ts';
import { waitForMailLink } from '../../tests/harness/browser-session.ts';
import { sleep } from './processes.ts';

/** Where the bench reads the link of an account mail: a directory of mail files, or an SMTP sink. */
export type MailLinks = string | ((to: string, subject: RegExp) => Promise<string>);

/**
 * Signs up an owner (verification link read from `dataDir/mail`, where a Formgate without SMTP writes it, or from
 * the SMTP sink the app sends to), creates an organization and returns a write API key for it (the credential the
 * bench calls the API with) and its id.
 */
export async function mintApiKey(baseUrl: string, mail: MailLinks): Promise<Credential> {
  const readLink = typeof mail === 'string' ? (to: string, s: RegExp) => waitForMailLink(mail, to, s) : mail;
  const accounts = createAccounts(baseUrl, async (email, subject) => {
    const link = new URL(await readLink(email, subject));
    return `${baseUrl}${link.pathname}${link.search}`;
  });
  const owner = await accounts.signUp(`bench-${Date.now()}@example.test`);
  const org = await accounts.createOrg(owner, 'Bench');
  return { token: await accounts.createApiKey(owner, 'write'), orgId: org.id };
}

export interface Credential {
  token: string;
  orgId: string;
}

export interface BenchForm {
  id: string;
  key: string;
}

/** The API the bench needs (with an organization API key): create forms, read the dashboard count, page through submission ids. */
export function createFormgateApi(baseUrl: string, { token, orgId }: Credential) {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  }

  const api = {
    baseUrl,
    token,
    orgId,
    /** GET `path` with the API key, expecting 200; resolves to the parsed body. */
    get: <T>(path: string) => call<T>('GET', path),
    /** Any JSON call with the API key, expecting 2xx; resolves to the parsed body. */
    call,
    createForm: (name: string) => call<BenchForm>('POST', '/api/v1/forms', { name }),

    /** The dashboard's count (`GET /api/v1/forms/:id` → `submissionCount`). */
    async count(formId: string): Promise<number> {
      const form = await call<{ submissionCount: number }>('GET', `/api/v1/forms/${formId}`);
      return form.submissionCount;
    },

    /** Every submission id of the form, by following `nextCursor` 100 at a time. */
    async allSubmissionIds(formId: string): Promise<Set<string>> {
      const ids = new Set<string>();
      let cursor: string | null = '';
      while (cursor !== null) {
        const page: { data: { id: string }[]; nextCursor: string | null } = await call(
          'GET',
          `/api/v1/forms/${formId}/submissions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        for (const s of page.data) ids.add(s.id);
        cursor = page.nextCursor;
      }
      return ids;
    },

    /**
     * Resolves once ingest knows the form (it learns about forms from the event log). The probe has an empty
     * body, so a known form answers 422 and nothing is stored.
     */
    async waitUntilIngestKnows(key: string, timeoutMs = 60_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const res = await fetch(`${baseUrl}/f/${key}`, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
        });
        await res.arrayBuffer();
        if (res.status !== 404) return;
        if (Date.now() > deadline) throw new Error(`ingest still answers 404 for form ${key}`);
        await sleep(20);
      }
    },

    /**
     * Polls the dashboard count until it reaches at least `atLeast` and then stops moving. Returns the final count
     * and when it first reached `atLeast` (ms, null if it never did within `timeoutMs`).
     */
    async settle(formId: string, atLeast: number, timeoutMs = 60_000) {
      const start = performance.now();
      let reachedMs: number | null = null;
      let last = -1;
      for (;;) {
        const count = await api.count(formId);
        const elapsed = performance.now() - start;
        if (count >= atLeast) reachedMs ??= elapsed;
        if ((reachedMs !== null && count === last) || elapsed > timeoutMs) return { count, reachedMs };
        last = count;
        await sleep(reachedMs === null ? 25 : 250);
      }
    },
  };
  return api;
}

export type FormgateApi = ReturnType<typeof createFormgateApi>;
