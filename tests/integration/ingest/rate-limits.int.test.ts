import { decodeEvent, Topics } from '@formgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp, type TestForm } from '../../harness/embedded-app.ts';
import { expectRejected, JSON_BODY, JSON_CLIENT, URLENCODED } from './ingest-client.ts';

/** The rate limits of issue 14 (docs/ingest.md, "Rate limits") over HTTP, embedded mode. */
describe('ingest: rate limits (embedded mode)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.stop();
  });

  /** A sliding window crossing into the next minute lets one more through: start well inside a minute. */
  const awayFromMinuteEnd = async () => {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 8_000) await new Promise((r) => setTimeout(r, left + 100));
  };

  const post = (form: TestForm, headers: Record<string, string> = JSON_CLIENT, body = '{"message":"hi"}') =>
    fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...JSON_BODY, ...headers },
      body,
    });

  it('per form: the limit passes, the next gets 429 RATE_LIMITED with Retry-After, and nothing is stored', async () => {
    await awayFromMinuteEnd();
    const form = await app.createForm({
      name: 'Limited',
      settings: { spam: { rateLimit: { perIpPerMinute: 0, perFormPerMinute: 4, perOrgPerMinute: 0 } } },
    });
    const other = await app.createForm({ name: 'Unlimited' });
    // `createForm` waited for ingest with one empty request, which passed the limit (and was refused as empty).
    for (let n = 0; n < 3; n++) expect((await post(form)).status).toBe(200);

    const refused = await post(form);
    const sent = Date.now();
    const retryAfter = Number(refused.headers.get('retry-after'));
    await expectRejected(refused, 429, 'RATE_LIMITED');
    // A full minute (prev 0, current 4 of 4): nothing passes before the next minute starts.
    const untilNextMinute = Math.ceil((60_000 - (sent % 60_000)) / 1000);
    expect(retryAfter).toBeGreaterThanOrEqual(untilNextMinute - 1);
    expect(retryAfter).toBeLessThanOrEqual(untilNextMinute + 1);

    // A browser's form post gets the page, with the same header.
    const page = await post(form, {}, 'message=hi');
    expect(page.status).toBe(429);
    expect(Number(page.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await page.text()).toContain('retry in');
    const urlencoded = await fetch(`${app.baseUrl}/f/${form.key}`, {
      method: 'POST',
      headers: { ...URLENCODED, ...JSON_CLIENT },
      body: 'message=hi',
    });
    expect(urlencoded.status).toBe(429);

    // Another form has its own count.
    expect((await post(other)).status).toBe(200);

    // Nothing refused was stored: three submissions, and they stay three.
    await eventually(async () => expect((await app.listSubmissions(form.id)).data).toHaveLength(3));
    await new Promise((r) => setTimeout(r, 300));
    expect((await app.listSubmissions(form.id)).data).toHaveLength(3);

    // The blocks are counted per form on ingest.abuse (forms reads them), within about a second.
    await eventually(async () => {
      let blocked = 0;
      const sub = await app.bus.replay(Topics.ingestAbuse, (m) => {
        for (const b of decodeEvent(Topics.ingestAbuse, m.value).data.blocked) {
          if (b.formId === form.id && b.layer === 'rate-limit' && b.rule === 'per-form') blocked += b.count;
        }
      });
      await sub.stop();
      expect(blocked).toBe(3);
    }, 5_000);
  });

  it('0 = off: a form without limits takes any number', async () => {
    const form = await app.createForm({
      name: 'Off',
      settings: { spam: { rateLimit: { perIpPerMinute: 0, perFormPerMinute: 0, perOrgPerMinute: 0 } } },
    });
    const statuses = await Promise.all(Array.from({ length: 30 }, () => post(form).then((r) => r.status)));
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
