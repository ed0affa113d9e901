import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmbeddedSeams, loadEmbeddedConfig, startEmbedded } from '@formgate/host-embedded';
import { createAccounts, createOrgKeys, type MailLinkReader } from './accounts.ts';
import { installApiRecorder } from './api-recorder.ts';
import { waitForMailLink } from './browser-session.ts';
import { ROOMY_PLANS_FILE } from './processes.ts';

export { eventually } from '@formgate/kit/testing';

// `FORMGATE_API_RECORD=<dir>`: the API's answers this process sees are recorded for the OpenAPI conformance check.
installApiRecorder();

export interface TestForm {
  id: string;
  key: string;
  slug: string;
  name: string;
}

/**
 * Formgate in embedded mode on a random port and a temporary data dir, with helpers to drive its API. `api(…, org)`
 * calls as the owner of organization `org` (created on first use, by sign-up, verification and an API key).
 */
export async function startTestApp(
  env: Record<string, string> = {},
  seams: EmbeddedSeams = {},
  /** Where sign-up links are read (the mail files under the data dir unless `SMTP_URL` sends them elsewhere). */
  mailLink?: MailLinkReader,
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'fg-it-'));
  // A restart keeps the port: sessions, links and keys of the first boot stay valid.
  let port = '0';
  const boot = () =>
    startEmbedded(
      loadEmbeddedConfig({
        DATA_DIR: dataDir,
        PORT: port,
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        AUTH_SIGN_IN_PER_MINUTE: '10000',
        USER_LOOKUPS_PER_MINUTE: '10000',
        PLANS_FILE: ROOMY_PLANS_FILE,
        // As vitest.config.ts sets it for the processes tests start (ADR 84).
        SERVICES_THREAD_NICENESS: '0',
        ...env,
      }),
      seams,
    );
  let app = await boot();
  port = String(app.port);
  const baseUrl = () => `http://127.0.0.1:${app.port}`;
  const accounts = createAccounts(baseUrl(), async (email, subject) =>
    (await (mailLink ?? ((e, s) => waitForMailLink(dataDir, e, s)))(email, subject)).replace(
      '//localhost:',
      '//127.0.0.1:',
    ),
  );
  const keyFor = createOrgKeys(accounts);

  const harness = {
    dataDir,
    accounts,
    get baseUrl() {
      return baseUrl();
    },
    /** The running app's embedded log. */
    get bus() {
      return app.bus;
    },
    /** `http://127.0.0.1:<port>/metrics` when started with `METRICS_PORT` (e.g. `'0'`). */
    get metricsUrl() {
      return app.metricsPort === undefined ? undefined : `http://127.0.0.1:${app.metricsPort}/metrics`;
    },
    /** The write API key of organization `org` (its owner signs up on first use). */
    apiKey: keyFor,
    async api(method: string, path: string, body?: unknown, org = 'default') {
      const headers: Record<string, string> = { 'x-api-key': await keyFor(org) };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${harness.baseUrl}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // 204 No Content: an empty body.
      const text = await res.text();
      return {
        status: res.status,
        body: (text ? JSON.parse(text) : {}) as Record<string, unknown> & { data?: unknown[] },
      };
    },
    async createForm(body: Record<string, unknown> = { name: 'Contact' }, org?: string): Promise<TestForm> {
      const res = await harness.api('POST', '/api/v1/forms', body, org);
      if (res.status !== 201) throw new Error(`create form: ${res.status} ${JSON.stringify(res.body)}`);
      const form = res.body as unknown as TestForm;
      await harness.waitForForm(form.key);
      return form;
    },
    /** Ingest learns about forms through the log; wait until it answers for this key. */
    async waitForForm(key: string) {
      for (let i = 0; i < 200; i++) {
        const res = await fetch(`${harness.baseUrl}/f/${key}`, {
          method: 'POST',
          headers: { accept: 'application/json' },
        });
        if (res.status !== 404) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`form ${key} never reached ingest`);
    },
    async listSubmissions(formId: string, query = '', org?: string) {
      const res = await harness.api('GET', `/api/v1/forms/${formId}/submissions${query}`, undefined, org);
      return res.body as {
        data: { id: string; fields: { name: string; value: string }[]; spam: boolean; held: boolean }[];
        nextCursor: string | null;
      };
    },
    /** Stops the instance, runs `whileDown` (over its files, say), and starts it again on the same `DATA_DIR`. */
    async restart(whileDown?: () => unknown) {
      await app.stop();
      await whileDown?.();
      app = await boot();
    },
    async stop() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
