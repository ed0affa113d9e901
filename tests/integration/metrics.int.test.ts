import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parsePrometheusText, type Sample, samplesOf, sumOf } from '@formgate/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApp, type TestApp } from '../harness/embedded-app.ts';

/** Issue 15: the embedded process's `/metrics` (one registry for the whole process) after a burst of submissions. */
describe('embedded mode: /metrics after a burst', () => {
  let app: TestApp;
  /** A webhook receiver answering the status its path names (`/200`, `/410`, `/500`). */
  let receiver: Server;
  let receiverUrl: string;
  beforeAll(async () => {
    app = await startTestApp({ METRICS_PORT: '0', WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true' });
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(Number(req.url?.slice(1))).end());
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    receiver?.closeAllConnections();
    await new Promise((r) => receiver?.close(r));
    await app.stop();
  });

  const scrape = async (): Promise<Sample[]> => {
    const res = await fetch(app.metricsUrl ?? 'http://metrics.invalid');
    expect(res.status).toBe(200);
    // Throws on any line a Prometheus scraper would not parse.
    return parsePrometheusText(await res.text());
  };
  const post = (key: string, body: Record<string, string>) =>
    fetch(`${app.baseUrl}/f/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });

  it('counts the accepted, spam and rejected submissions, HTTP by route template, and lag back to 0', async () => {
    const form = await app.createForm({ name: 'Measured', settings: { honeypotField: '_gotcha' } });
    const before = await scrape();
    const accepted = (o: Sample[]) => sumOf(o, 'formgate_ingest_submissions_total', { outcome: 'accepted' });
    const N = 40;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) => post(form.key, { email: `p${i}@example.com`, message: 'hi' })),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(N).fill(200));
    expect((await post(form.key, { message: 'bot', _gotcha: 'filled' })).status).toBe(200);
    expect((await post(form.key, {})).status).toBe(422);
    expect((await app.api('GET', `/api/v1/forms/${form.id}`)).status).toBe(200);

    // Every submission reaches the read model, and then no consumer of the log has anything left.
    await eventually(async () => {
      const l = await app.listSubmissions(form.id, '?limit=100');
      expect(l.data.length).toBe(N + 1);
    }, 15_000);
    const after = await eventually(async () => {
      const samples = await scrape();
      const lag = samplesOf(samples, 'formgate_consumer_lag', { topic: 'ingest.submission' });
      const groups = new Set(lag.map((s) => s.labels.group));
      for (const g of [
        'forms.submission-received',
        'billing.usage',
        'notifications.deliveries',
        'notifications.webhooks',
      ]) {
        expect(groups).toContain(g);
      }
      expect(lag.filter((s) => s.value !== 0)).toEqual([]);
      return samples;
    }, 15_000);

    expect(accepted(after) - accepted(before)).toBe(N);
    expect(sumOf(after, 'formgate_ingest_submissions_total', { outcome: 'spam' })).toBe(1);
    expect(sumOf(after, 'formgate_ingest_submissions_total', { outcome: 'rejected', code: 'EMPTY' })).toBe(1);
    // HTTP by route template: ingest's own, the gateway's (route table) and the forms service's.
    expect(
      sumOf(after, 'formgate_http_requests_total', { service: 'ingest', route: '/f/:key', status: '200' }) -
        sumOf(before, 'formgate_http_requests_total', { service: 'ingest', route: '/f/:key', status: '200' }),
    ).toBe(N + 1);
    expect(sumOf(after, 'formgate_http_requests_total', { service: 'gateway', route: '/f/*' })).toBeGreaterThan(N);
    const byId = { route: '/api/v1/forms/:formId', method: 'GET', status: '200' };
    expect(sumOf(after, 'formgate_http_requests_total', { service: 'gateway', ...byId })).toBe(1);
    expect(sumOf(after, 'formgate_http_requests_total', { service: 'forms', ...byId })).toBe(1);
    expect(sumOf(after, 'formgate_http_request_duration_seconds_count', { service: 'ingest', route: '/f/:key' })).toBe(
      sumOf(after, 'formgate_http_requests_total', { service: 'ingest', route: '/f/:key' }),
    );
    // Never a raw path: no form key or id in any label.
    expect(
      after.filter((s) => Object.values(s.labels).some((v) => v.includes(form.key) || v.includes(form.id))),
    ).toEqual([]);
    expect(
      sumOf(after, 'formgate_bus_publish_duration_seconds_count', { topic: 'ingest.submission' }),
    ).toBeGreaterThanOrEqual(N + 1);
    expect(sumOf(after, 'formgate_bus_batch_size_sum', { topic: 'ingest.submission' })).toBeGreaterThanOrEqual(
      3 * (N + 1),
    );
    // Node's own, once for the process (the main thread's): heap, event-loop delay, the start time.
    expect(sumOf(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect(samplesOf(after, 'nodejs_eventloop_lag_p99_seconds')).toHaveLength(1);
    const [startTime] = samplesOf(after, 'process_start_time_seconds');
    expect(startTime?.value).toBeGreaterThan(Date.now() / 1000 - 600);
    // The log thread's group commits: at least the submissions, never more commits than records.
    const appended = sumOf(after, 'formgate_bus_append_records_sum', { log: 'embedded' });
    expect(appended).toBeGreaterThanOrEqual(N + 1);
    expect(sumOf(after, 'formgate_bus_append_records_count', { log: 'embedded' })).toBeLessThanOrEqual(appended);
    // Stage times of the accepted submissions (ingest, this thread) are there.
    expect(sumOf(after, 'formgate_ingest_stage_seconds_total', { stage: 'append' })).toBeGreaterThan(0);
  });

  it('counts webhook attempts by status: succeeded, retrying, failed', async () => {
    const form = await app.createForm({ name: 'Hooked' });
    for (const status of [200, 500, 410]) {
      const res = await app.api('POST', `/api/v1/forms/${form.id}/webhooks`, { url: `${receiverUrl}/${status}` });
      expect(res.status).toBe(201);
    }
    const attempts = (samples: Sample[], status: string) =>
      sumOf(samples, 'formgate_notification_attempts_total', { channel: 'webhook', status });
    const before = await scrape();
    expect((await post(form.key, { message: 'to three endpoints' })).status).toBe(200);

    const after = await eventually(async () => {
      const samples = await scrape();
      expect(attempts(samples, 'succeeded') - attempts(before, 'succeeded')).toBe(1);
      expect(attempts(samples, 'failed') - attempts(before, 'failed')).toBe(1);
      expect(attempts(samples, 'retrying') - attempts(before, 'retrying')).toBeGreaterThanOrEqual(1);
      return samples;
    }, 15_000);
    // Webhook attempts only: no email was attempted.
    expect(sumOf(after, 'formgate_notification_attempts_total', { channel: 'email' })).toBe(
      sumOf(before, 'formgate_notification_attempts_total', { channel: 'email' }),
    );
  });

  it('keeps /metrics off the public port', async () => {
    const res = await fetch(`${app.baseUrl}/metrics`);
    expect(await res.text()).not.toContain('formgate_http_requests_total');
  });
});
