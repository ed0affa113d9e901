import { randomUUID } from 'node:crypto';
import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CaptchaVerifier, startCaptchaVerifier } from '../harness/captcha-verifier.ts';
import { eventually } from '../harness/embedded-app.ts';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

const TURNSTILE_SECRET = 'ts-secret-e2e';

/**
 * Captchas in distributed mode: two ingest processes behind the gateway, Kafka and FerretDB. Turnstile through the
 * local siteverify stand-in; an ALTCHA challenge issued by one ingest instance is accepted by the other (both
 * derive the form's keys from the same INGEST_SECRET).
 */
describe('captchas in distributed mode', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  let verifier: CaptchaVerifier;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey('default'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const createForm = async (captcha: Record<string, unknown>) => {
    const created = await api('POST', '/api/v1/forms', {
      name: `Captcha ${captcha.provider}`,
      settings: { spam: { captcha: { secret: null, minScore: null, onFailure: 'reject', ...captcha } } },
    });
    expect(created.status).toBe(201);
    return created.body as { id: string; key: string };
  };
  const post = (base: string, key: string, body: Record<string, string>) =>
    fetch(`${base}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    });
  const stored = (formId: string, id: string) =>
    eventually(async () => {
      const got = await api('GET', `/api/v1/forms/${formId}/submissions/${id}`);
      expect(got.status).toBe(200);
      return got.body as { spam: boolean; spamReasons: unknown[] };
    }, 30_000);

  beforeAll(async () => {
    verifier = await startCaptchaVerifier({ turnstile: TURNSTILE_SECRET, hcaptcha: 'unused', recaptcha: 'unused' });
    cluster = await startDistributed({
      kafkaBrokers: KAFKA_BROKERS,
      mongoUrl: MONGO_URL,
      ingestEnv: { ...verifier.env, ALTCHA_MAX_COUNTER: '400' },
    });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
    await verifier?.stop();
  });

  it('Turnstile: a good token is accepted through the gateway, a bad one refused 403 BLOCKED', async () => {
    const form = await createForm({ provider: 'turnstile', secret: TURNSTILE_SECRET });
    verifier.program('e2e-good', { outcome: 'success' });
    verifier.program('e2e-bad', { outcome: 'failure', errorCodes: ['invalid-input-response'] });
    let id = '';
    // Until both ingest instances know the new form, a submission may answer 404: retry.
    await eventually(async () => {
      const res = await post(cluster.baseUrl, form.key, { message: 'hi', 'cf-turnstile-response': 'e2e-good' });
      expect(res.status).toBe(200);
      id = ((await res.json()) as { id: string }).id;
    }, 30_000);
    expect((await stored(form.id, id)).spam).toBe(false);
    expect(verifier.callsFor('e2e-good')[0]).toMatchObject({ secret: TURNSTILE_SECRET, response: 'e2e-good' });
    const bad = await post(cluster.baseUrl, form.key, { message: 'hi', 'cf-turnstile-response': 'e2e-bad' });
    expect(bad.status).toBe(403);
    expect(((await bad.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('BLOCKED');
  });

  it('ALTCHA: a challenge from one ingest instance is accepted by the other', async () => {
    const form = await createForm({ provider: 'altcha' });
    const [one, two] = [cluster.processes['ingest-1']?.url, cluster.processes['ingest-2']?.url];
    if (!one || !two) throw new Error('no ingest instances');
    const challenge = await eventually(async () => {
      const res = await fetch(`${one}/f/${form.key}/altcha`);
      expect(res.status).toBe(200);
      return (await res.json()) as Challenge;
    }, 30_000);
    const solution = await solveChallenge({ challenge, deriveKey });
    const altcha = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    let id = '';
    await eventually(async () => {
      const res = await post(two, form.key, { message: 'human', altcha });
      expect(res.status).toBe(200);
      id = ((await res.json()) as { id: string }).id;
    }, 30_000);
    const got = await stored(form.id, id);
    expect(got.spam).toBe(false);
    expect(got.spamReasons).toEqual([]);
  });
});
