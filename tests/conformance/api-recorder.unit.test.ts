import { buildOpenApiDocument } from '@formgate/contracts/openapi';
import { describe, expect, it } from 'vitest';
import { checkSamples } from '../harness/api-conformance.ts';
import { createApiRecorder } from '../harness/api-recorder.ts';

/** A `fetch` answering `body` (a string, or chunks streamed one by one) with `type`, whatever is asked. */
const answering =
  (body: string | string[], type: string, status = 200): typeof fetch =>
  async () => {
    const chunks = typeof body === 'string' ? [body] : [...body];
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = chunks.shift();
        if (next === undefined) return controller.close();
        await new Promise((resolve) => setTimeout(resolve, 1));
        controller.enqueue(new TextEncoder().encode(next));
      },
    });
    return new Response(stream, { status, headers: { 'content-type': type } });
  };

const base = 'http://127.0.0.1:1';

describe('the API recorder', () => {
  it('leaves a streamed answer whole to the caller and records it once per shape', async () => {
    const chunks = ['[{"id":"a"}', ',{"id":"b"}', ']'];
    const recorder = createApiRecorder(answering(chunks, 'application/json'));
    const res = await recorder.fetch(`${base}/api/v1/forms/f1/submissions/export?format=json`);
    expect(await res.text()).toBe(chunks.join(''));
    await recorder.fetch(`${base}/api/v1/forms/f2/submissions/export?format=json`);
    await recorder.flush();
    expect(recorder.samples).toEqual([
      {
        method: 'GET',
        route: '/api/v1/forms/:formId/submissions/export',
        status: 200,
        contentType: 'application/json',
        body: [{ id: 'a' }, { id: 'b' }],
      },
    ]);
  });

  it("records an answer the caller never reads, and only API routes' answers that are not a stand-in's", async () => {
    const recorder = createApiRecorder(answering('{"error":{"code":"X"}}', 'application/json', 404));
    const unread = await recorder.fetch(`${base}/api/v1/forms/f1`, { method: 'DELETE' });
    await recorder.fetch(`${base}/api/auth/sign-in/email`, { method: 'POST' });
    await recorder.fetch(`${base}/healthz`);
    const standIn = createApiRecorder(async () => new Response('live', { headers: { 'x-test-stand-in': '1' } }));
    await standIn.fetch(`${base}/f/abc`, { method: 'POST' });
    await standIn.flush();
    expect(standIn.samples).toEqual([]);
    await recorder.flush();
    expect(unread.bodyUsed).toBe(false);
    expect(recorder.samples.map((s) => `${s.method} ${s.route} ${s.status}`)).toEqual([
      'DELETE /api/v1/forms/:formId 404',
    ]);
  });

  it('stops reading past 256 KiB and keeps the status without the body', async () => {
    const row = `${'x'.repeat(1023)}\n`;
    const recorder = createApiRecorder(answering(Array(400).fill(row), 'text/csv'));
    const res = await recorder.fetch(`${base}/api/v1/forms/f1/submissions/export?format=csv`);
    expect((await res.text()).length).toBe(400 * 1024);
    await recorder.flush();
    expect(recorder.samples).toMatchObject([{ status: 200, contentType: 'text/csv', body: null }]);
  });

  it('keeps a JSON answer that does not parse as text, and the check names its route, status and error', async () => {
    const recorder = createApiRecorder(answering('{"productName":', 'application/json'));
    await recorder.fetch(`${base}/api/v1/site`);
    await recorder.flush();
    expect(recorder.samples[0]?.body).toBe('{"productName":');
    const [failure, ...rest] = checkSamples(buildOpenApiDocument(), recorder.samples);
    expect(rest).toEqual([]);
    expect(failure).toMatch(/^GET \/api\/v1\/site → 200: data must be object/);
  });

  it('stops reading bodies of a route and status after 100 answers of it in a process', async () => {
    let shape = '{"id":"a"}';
    const recorder = createApiRecorder(
      async () => new Response(shape, { headers: { 'content-type': 'application/json' } }),
    );
    for (let i = 0; i < 100; i++) await recorder.fetch(`${base}/api/v1/forms/f${i}`);
    shape = '{"name":"b"}';
    await recorder.fetch(`${base}/api/v1/forms/late`);
    await recorder.fetch(`${base}/api/v1/forms/late`, { method: 'DELETE' });
    await recorder.flush();
    expect(recorder.samples.map((s) => `${s.method} ${JSON.stringify(s.body)}`)).toEqual([
      'GET {"id":"a"}',
      'DELETE {"name":"b"}',
    ]);
  });

  it("records answers another client saw (Chromium's, node:http's) and lets go of other paths' bodies", async () => {
    const recorder = createApiRecorder(fetch);
    const discarded: string[] = [];
    const answer = (path: string, text: string) => ({
      method: 'POST',
      path,
      status: 200,
      contentType: 'application/json; charset=utf-8',
      text: async () => text,
      discard: () => discarded.push(path),
    });
    recorder.record(answer('/f/abc123', '{"ok":true}'));
    recorder.record(answer('/api/auth/sign-in/email', '{}'));
    await recorder.flush();
    expect(discarded).toEqual(['/api/auth/sign-in/email']);
    expect(recorder.samples).toMatchObject([{ method: 'POST', status: 200, body: { ok: true } }]);
    expect(recorder.samples[0]?.route).toMatch(/^\/f\/:/);
  });
});
