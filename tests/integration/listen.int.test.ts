import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { FormgateError, type LiveEvent, streamEvents } from '@formgate/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';
import { followEvents, ofSubmission } from '../harness/live-events.ts';

/**
 * `GET /api/v1/events` and `formgate listen` (docs/listen.md) through the gateway of an embedded Formgate: the
 * stream's events, its tenancy, its resumption, its limit, the CLI forwarding signed submissions, and a stop that
 * does not wait for a stream's client to leave.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

async function startReceiver() {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(202).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { url, received, close };
}

/** An open stream of `app`'s events, collected as they come (`followEvents`). */
const follow = (app: TestApp, apiKey: string, options: { lastEventId?: string; formId?: string } = {}) =>
  followEvents({ baseUrl: app.baseUrl, apiKey, ...options });

describe('live events (GET /api/v1/events) and formgate listen', { timeout: 60_000 }, () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let readKey: string;
  let writeKey: string;
  let otherKey: string;
  let session: Awaited<ReturnType<TestApp['accounts']['signUp']>>;
  let form: { id: string; key: string };
  let otherForm: { id: string; key: string };

  const api = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return (await res.json()) as Record<string, unknown>;
  };
  const submit = async (key: string, fields: Record<string, string>) => {
    const res = await fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(fields),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    app = await startTestApp({ WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    session = await app.accounts.signUp();
    await app.accounts.createOrg(session, 'Listen Co');
    writeKey = await app.accounts.createApiKey(session, 'write');
    readKey = await app.accounts.createApiKey(session, 'read');
    form = (await api(writeKey, 'POST', '/api/v1/forms', { name: 'Contact' })) as typeof form;
    await api(writeKey, 'POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiver.url}/real` });
    await app.waitForForm(form.key);
    const other = await app.accounts.signUp();
    await app.accounts.createOrg(other, 'Other Co');
    otherKey = await app.accounts.createApiKey(other, 'write');
    otherForm = (await api(otherKey, 'POST', '/api/v1/forms', { name: 'Theirs' })) as typeof otherForm;
    await app.waitForForm(otherForm.key);
  }, 90_000);
  afterAll(async () => {
    await app?.stop();
    await receiver?.close();
  });

  it('delivers a new submission as its webhook body, then its delivery outcome; never another organization’s', async () => {
    const stream = follow(app, readKey);
    const theirs = follow(app, otherKey);
    await Promise.all([stream.open, theirs.open]);
    const foreign = await submit(otherForm.key, { message: 'not yours' });
    const id = await submit(form.key, { email: 'ada@example.com', message: 'hello' });
    await eventually(() => expect(ofSubmission(stream.events, id).map((e) => e.type)).toContain('delivery.succeeded'));
    const [created] = ofSubmission(stream.events, id);
    expect(created?.type).toBe('submission.created');
    const real = receiver.received.find((r) => r.body.includes(id));
    expect(created?.data).toBe(real?.body);
    expect(created?.payload).toMatchObject({ type: 'submission.created', data: { id, form: { id: form.id } } });
    await eventually(() => expect(ofSubmission(theirs.events, foreign).length).toBeGreaterThan(0));
    expect(ofSubmission(stream.events, foreign)).toEqual([]);
    expect(ofSubmission(theirs.events, id)).toEqual([]);
    await Promise.all([stream.close(), theirs.close()]);
  });

  it('resumes after Last-Event-ID without losing or repeating an event', async () => {
    const first = follow(app, readKey, { formId: form.id });
    await first.open;
    const before = await submit(form.key, { message: 'before' });
    await eventually(() => expect(ofSubmission(first.events, before).length).toBeGreaterThan(0));
    const last = first.events.at(-1) as LiveEvent;
    await first.close();
    const missed = await submit(form.key, { message: 'while away' });
    const resumed = follow(app, readKey, { formId: form.id, lastEventId: last.id });
    await eventually(() =>
      expect(ofSubmission(resumed.events, missed).map((e) => e.type)).toContain('submission.created'),
    );
    expect(resumed.events.filter((e) => e.id === last.id)).toEqual([]);
    expect(ofSubmission(resumed.events, before).filter((e) => e.type === 'submission.created')).toEqual([]);
    await resumed.close();
  });

  it('is open to a member’s session, and refuses another organization’s form', async () => {
    const cookie = [...session.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const abort = new AbortController();
    const res = await fetch(`${app.baseUrl}/api/v1/events`, {
      headers: { cookie, origin: app.baseUrl, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    await res.body?.cancel();
    abort.abort();
    const refused = streamEvents({ baseUrl: app.baseUrl, apiKey: readKey, formId: otherForm.id }).next();
    await expect(refused).rejects.toMatchObject({ status: 404, code: 'FORMS_FORM_NOT_FOUND' });
  });

  it('refuses a sixth stream of one organization with NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED', async () => {
    const open = Array.from({ length: 5 }, () => follow(app, writeKey));
    await Promise.all(open.map((s) => s.open));
    const sixth = streamEvents({ baseUrl: app.baseUrl, apiKey: writeKey }).next();
    await expect(sixth).rejects.toBeInstanceOf(FormgateError);
    await expect(sixth).rejects.toMatchObject({ status: 429, code: 'NOTIFICATIONS_EVENT_STREAMS_LIMIT_REACHED' });
    await Promise.all(open.map((s) => s.close()));
  });

  it('formgate listen forwards a submission to the local URL, signed so that Standard Webhooks verification accepts it', async () => {
    const cli: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', 'packages/cli/src/main.ts', 'listen', '--forward-to', `${receiver.url}/local`],
      { cwd: ROOT, env: { ...process.env, FORMGATE_URL: app.baseUrl, FORMGATE_API_KEY: readKey } },
    );
    let out = '';
    cli.stdout?.on('data', (c) => {
      out += c;
    });
    const exited = new Promise<number | null>((r) => cli.on('exit', (code) => r(code)));
    await eventually(() => expect(out).toMatch(/signing secret is whsec_\S+/), 20_000);
    const secret = (out.match(/(whsec_\S+)/) as RegExpMatchArray)[1] as string;
    await eventually(() => expect(out).toContain('Connected.'), 20_000);
    const id = await submit(form.key, { message: 'to localhost' });
    await eventually(() => expect(receiver.received.filter((r) => r.body.includes(id))).toHaveLength(2));
    const local = receiver.received.find((r) => r.body.includes(id) && r.headers['user-agent'] === 'formgate-listen');
    const headers = local?.headers as Record<string, string>;
    expect(new Webhook(secret).verify(local?.body ?? '', headers)).toMatchObject({ data: { id } });
    await eventually(() =>
      expect(out).toContain(`submission.created ${id} form ${form.id} → POST ${receiver.url}/local 202`),
    );
    cli.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('Stopped.');
  });
});

describe('stopping Formgate with an event stream open', { timeout: 60_000 }, () => {
  it('ends the stream and stops at once, though its client never disconnects', async () => {
    const app = await startTestApp();
    const session = await app.accounts.signUp();
    await app.accounts.createOrg(session, 'Stop Co');
    const stream = follow(app, await app.accounts.createApiKey(session, 'read'));
    await stream.open;
    const started = Date.now();
    await app.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(stream.ended).resolves.toBeUndefined();
  });
});
