import { Topics } from '@formgate/contracts';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/embedded-app.ts';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

/** Ingest instances publish their counts every second; one more second covers the delivery. */
const EXCHANGE_SETTLES_MS = 2_500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Rate limits of issue 14 in distributed mode (docs/ingest.md, "Rate limits"): two ingest instances behind the
 * gateway share their counts over `ingest.abuse`, so a per-form limit holds across both, up to what the other
 * instance accepted within one report interval.
 */
describe('distributed mode: rate limits hold across two ingest instances', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  beforeAll(async () => {
    cluster = await startDistributed({ kafkaBrokers: KAFKA_BROKERS, mongoUrl: MONGO_URL });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

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
  const ingestUrls = () => [cluster.processes['ingest-1']?.url ?? '', cluster.processes['ingest-2']?.url ?? ''];

  /**
   * A form limited to `perFormPerMinute`, known to both instances. Each instance's first answer other than 404 is
   * to an empty probe that passed the limit (and was refused as empty): it counts, so this returns 2 counted.
   */
  const limitedForm = async (perFormPerMinute: number) => {
    const res = await api('POST', '/api/v1/forms', {
      name: 'Limited',
      settings: { spam: { rateLimit: { perIpPerMinute: 0, perFormPerMinute, perOrgPerMinute: 0 } } },
    });
    expect(res.status).toBe(201);
    const form = res.body as { id: string; key: string };
    for (const url of ingestUrls()) {
      await eventually(async () => {
        const r = await fetch(`${url}/f/${form.key}`, { method: 'POST', headers: { accept: 'application/json' } });
        expect(r.status).not.toBe(404);
      }, 30_000);
    }
    return { ...form, counted: 2 };
  };
  const post = (base: string, key: string) =>
    fetch(`${base}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ message: 'hello' }),
    });
  const storedCount = async (formId: string) => {
    const page = await api('GET', `/api/v1/forms/${formId}/submissions?limit=100`);
    return (page.body as { data: unknown[] }).data.length;
  };
  /** The sliding window lets more through as a minute ends: start a phase-by-phase test well inside one. */
  const awayFromMinuteEnd = async (needMs: number) => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < needMs) await sleep(left + 200);
  };

  it('a per-form limit counted on one instance holds on the other; 429 + Retry-After; nothing stored for a 429', async () => {
    const LIMIT = 10;
    await awayFromMinuteEnd(30_000);
    const form = await limitedForm(LIMIT);
    const [one = '', two = ''] = ingestUrls();

    // Four accepted by ingest-1 alone: with the probes, 6 counted.
    for (let n = 0; n < 4; n++) expect((await post(one, form.key)).status).toBe(200);
    await sleep(EXCHANGE_SETTLES_MS);

    // ingest-2 knows them: exactly LIMIT − 6 more pass there, then 429 (without the exchange all ten would).
    const onTwo: number[] = [];
    for (let n = 0; n < 10; n++) onTwo.push((await post(two, form.key)).status);
    expect(onTwo).toEqual([200, 200, 200, 200, 429, 429, 429, 429, 429, 429]);
    await sleep(EXCHANGE_SETTLES_MS);

    // Through the gateway (either instance): all refused, with RATE_LIMITED and an exact, whole Retry-After.
    const answers = await Promise.all(Array.from({ length: 8 }, () => post(cluster.baseUrl, form.key)));
    for (const res of answers) {
      expect(res.status).toBe(429);
      const retryAfter = Number(res.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      // A full minute with nothing before it: until the next minute starts.
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil((60_000 - (Date.now() % 60_000)) / 1000) + 1);
      expect(await res.json()).toMatchObject({ errors: [{ code: 'RATE_LIMITED' }] });
    }

    // Stored: the eight accepted, never a refused one.
    await eventually(async () => expect(await storedCount(form.id)).toBe(8), 30_000);
    await sleep(1_000);
    expect(await storedCount(form.id)).toBe(8);
  });

  it('a burst at both instances at once: at least the limit, at most what the other accepted in one interval more', async () => {
    const LIMIT = 10;
    await awayFromMinuteEnd(20_000);
    const form = await limitedForm(LIMIT);
    await sleep(EXCHANGE_SETTLES_MS);
    const [one = '', two = ''] = ingestUrls();
    // 40 requests within well under one interval, alternating between the instances.
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, n) => post(n % 2 === 0 ? one : two, form.key).then((r) => r.status)),
    );
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // Each instance alone admits up to LIMIT − counted: the tolerance is what the other one admitted meanwhile.
    expect(accepted).toBeGreaterThanOrEqual(LIMIT - form.counted);
    expect(accepted).toBeLessThanOrEqual(2 * (LIMIT - form.counted));
    // Once the reports crossed, neither admits any more.
    await sleep(EXCHANGE_SETTLES_MS);
    for (const url of [one, two]) expect((await post(url, form.key)).status).toBe(429);
    await eventually(async () => expect(await storedCount(form.id)).toBe(accepted), 30_000);
  });

  it('ingest.abuse is created with a one-hour retention, so the reads at start stay bounded', async () => {
    const kafka = new Kafka({ brokers: KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: `${cluster.kafkaTopicPrefix}${Topics.ingestAbuse}` }],
      });
      const config = Object.fromEntries(resources[0]?.configEntries.map((e) => [e.configName, e.configValue]) ?? []);
      expect(config['retention.ms']).toBe('3600000');
      expect(config['segment.ms']).toBe('600000');
    } finally {
      await admin.disconnect();
    }
  });
});
