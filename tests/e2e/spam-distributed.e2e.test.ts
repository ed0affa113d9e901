import type { SpamReason } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../harness/embedded-app.ts';
import { startDistributed } from '../harness/processes.ts';

const KAFKA_BROKERS = process.env.KAFKA_BROKERS;
const MONGO_URL = process.env.MONGO_URL;
if (!KAFKA_BROKERS || !MONGO_URL) {
  throw new Error('KAFKA_BROKERS and MONGO_URL must be set (the e2e global setup provides them)');
}

const SHOP = 'https://shop.example';
interface SubmissionDto {
  id: string;
  spam: boolean;
  spamReasons: SpamReason[];
}

/** Issue 14's spam layers on the distributed processes (gateway → two ingest instances → Kafka → forms on FerretDB). */
describe('distributed mode: spam layers', () => {
  let cluster: Awaited<ReturnType<typeof startDistributed>>;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${cluster.baseUrl}${path}`, {
      method,
      headers: {
        'x-api-key': await cluster.apiKey('spam'),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const ingestUrls = () => [cluster.processes['ingest-1']?.url ?? '', cluster.processes['ingest-2']?.url ?? ''];
  const post = (base: string, key: string, body: Record<string, string>, origin?: string) =>
    fetch(`${base}/f/${key}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        ...(origin ? { origin } : {}),
      },
      body: new URLSearchParams(body).toString(),
    });
  const accepted = async (res: Response) => {
    expect(res.status).toBe(200);
    return ((await res.json()) as { id: string }).id;
  };

  beforeAll(async () => {
    cluster = await startDistributed({ kafkaBrokers: KAFKA_BROKERS, mongoUrl: MONGO_URL });
  }, 240_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('flags a scripted attack with its reasons, blocks a foreign origin with nothing stored', async () => {
    const created = await api('POST', '/api/v1/forms', {
      name: 'Spam e2e',
      settings: {
        allowedOrigins: [SHOP],
        spam: {
          origins: 'reject',
          timeTrapSeconds: 1,
          rules: {
            blockedWords: ['casino'],
            blockedDomains: [],
            maxLinks: null,
            disposableEmails: false,
            threshold: 3,
          },
        },
      },
    });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    // Both ingest instances know the form (with its settings) before the test posts to it.
    await eventually(async () => {
      for (const url of ingestUrls()) {
        const r = await post(url, form.key, { message: 'probe' }, 'https://evil.example');
        expect(r.status).toBe(403);
      }
    }, 30_000);

    // Blocked through the gateway: 403 BLOCKED, before the body is read.
    const blocked = await post(cluster.baseUrl, form.key, { message: 'hi' }, 'https://evil.example');
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('BLOCKED');

    // Flagged through the gateway: the allowed origin, but too fast and a blocked word.
    const stamp = (await (await fetch(`${cluster.baseUrl}/f/${form.key}/timestamp`)).json()) as { value: string };
    const flaggedId = await accepted(
      await post(cluster.baseUrl, form.key, { message: 'best casino', _formgate_ts: stamp.value }, SHOP),
    );

    // A timestamp issued by one instance is genuine on the other (INGEST_SECRET is shared): clean once old enough.
    const [one = '', two = ''] = ingestUrls();
    const fromOne = (await (await fetch(`${one}/f/${form.key}/timestamp`)).json()) as { value: string };
    await new Promise((r) => setTimeout(r, 1_100));
    const cleanId = await accepted(await post(two, form.key, { message: 'hello', _formgate_ts: fromOne.value }, SHOP));

    const listed = await eventually(async () => {
      const page = await api('GET', `/api/v1/forms/${form.id}/submissions?limit=100`);
      const data = (page.body as { data: SubmissionDto[] }).data;
      expect(data.map((s) => s.id).sort()).toEqual([flaggedId, cleanId].sort());
      return data;
    }, 30_000);
    const flagged = listed.find((s) => s.id === flaggedId);
    expect(flagged?.spam).toBe(true);
    expect(flagged?.spamReasons.map((r) => `${r.layer}/${r.rule}`)).toEqual([
      'time-trap/too-fast',
      'rules/blocked-word',
    ]);
    expect(listed.find((s) => s.id === cleanId)).toMatchObject({ spam: false, spamReasons: [] });
  }, 120_000);

  it('organization defaults reach both ingest instances through orgs.settings; shadow records without acting', async () => {
    const rulesOff = { blockedWords: [], blockedDomains: [], maxLinks: null, disposableEmails: false, threshold: 3 };
    const created = await api('POST', '/api/v1/forms', {
      name: 'Org defaults e2e',
      settings: { allowedOrigins: [SHOP] },
    });
    expect(created.status).toBe(201);
    const form = created.body as { id: string; key: string };
    const defaults = {
      origins: 'flag',
      rules: { ...rulesOff, blockedWords: ['casino'], maxLinks: 1, disposableEmails: true, threshold: 2 },
    };
    expect((await api('PATCH', '/api/v1/orgs/settings', { spam: defaults })).status).toBe(200);
    const attack = { message: 'casino http://a.example http://b.example', email: 'x@mailinator.com', _gotcha: 'bot' };
    // orgs → outbox → orgs.settings (Kafka) → each ingest instance's view: both flag by the defaults.
    const reasonsOf = async (id: string) =>
      eventually(async () => {
        const got = await api('GET', `/api/v1/forms/${form.id}/submissions/${id}`);
        expect(got.status).toBe(200);
        return got.body as unknown as SubmissionDto;
      }, 30_000);
    for (const url of ingestUrls()) {
      await eventually(async () => {
        const id = await accepted(await post(url, form.key, { message: 'casino' }, SHOP));
        expect((await reasonsOf(id)).spamReasons.map((r) => r.rule)).toContain('blocked-word');
      }, 30_000);
      const id = await accepted(await post(url, form.key, attack, 'https://evil.example'));
      const flagged = await reasonsOf(id);
      expect(flagged.spam).toBe(true);
      expect(flagged.spamReasons.map((r) => `${r.layer}/${r.rule}`)).toEqual([
        'honeypot/field-filled',
        'origin/origin-not-allowed',
        'rules/blocked-word',
        'rules/disposable-email',
        'rules/too-many-links',
      ]);
    }

    // Shadow (the form's own setting over the defaults): every would-be verdict recorded, nothing acts but the honeypot.
    const shadowed = await api('PATCH', `/api/v1/forms/${form.id}`, {
      settings: { spam: { ...defaults, origins: 'reject', shadow: true } },
    });
    expect(shadowed.status).toBe(200);
    for (const url of ingestUrls()) {
      const clean = await eventually(async () => {
        const res = await post(url, form.key, { message: 'casino' }, 'https://evil.example');
        expect(res.status).toBe(200);
        const dto = await reasonsOf(((await res.json()) as { id: string }).id);
        expect(dto.spamReasons.every((r) => r.shadow === true)).toBe(true);
        return dto;
      }, 30_000);
      expect(clean.spam).toBe(false);
      expect(clean.spamReasons.map((r) => `${r.layer}/${r.rule}`)).toEqual([
        'origin/origin-not-allowed',
        'rules/blocked-word',
      ]);
    }
    // Back to no defaults: the organization is shared with the other tests of this file.
    expect((await api('PATCH', '/api/v1/orgs/settings', { spam: null })).status).toBe(200);
  }, 180_000);
});
