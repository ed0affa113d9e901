import express from 'express';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors.ts';
import { FastCounter, FastHistogram } from '../src/fast-metrics.ts';
import { createServiceApp, errorHandler } from '../src/http.ts';
import { closeServer, createHttpServer, listen } from '../src/http-server.ts';
import { createLogger } from '../src/logger.ts';
import { createMetrics, serveMetrics } from '../src/metrics.ts';
import { parsePrometheusText, sumOf } from '../src/testing/prometheus-text.ts';

const scrape = async (metrics: ReturnType<typeof createMetrics>) =>
  parsePrometheusText((await metrics.exposition()).body);

describe('createMetrics: one registry per process, in the text exposition format', () => {
  it('exposes Node’s own metrics under their standard names and every formgate_ family', async () => {
    const text = (await createMetrics().exposition()).body;
    parsePrometheusText(text);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_seconds_total',
      'formgate_http_requests_total',
      'formgate_http_request_duration_seconds',
      'formgate_ingest_submissions_total',
      'formgate_bus_publish_duration_seconds',
      'formgate_bus_batch_size',
      'formgate_consumer_lag',
      'formgate_dead_letters_total',
      'formgate_notification_attempts_total',
      'formgate_mongo_commands_total',
    ]) {
      expect(text).toMatch(new RegExp(`^# TYPE ${name} `, 'm'));
    }
  });

  it('keeps two registries apart (two apps in one process never mix their counts)', async () => {
    const a = createMetrics({ defaults: false });
    const b = createMetrics({ defaults: false });
    a.countSubmission('accepted');
    a.countSubmission('accepted');
    a.countSubmission('rejected', 'INGEST_EMPTY');
    expect(sumOf(await scrape(a), 'formgate_ingest_submissions_total', { outcome: 'accepted' })).toBe(2);
    expect(sumOf(await scrape(a), 'formgate_ingest_submissions_total', { code: 'INGEST_EMPTY' })).toBe(1);
    expect(sumOf(await scrape(b), 'formgate_ingest_submissions_total')).toBe(0);
  });

  it('counts and times each label combination, escaping label values so the exposition still parses', async () => {
    const m = createMetrics({ defaults: false });
    m.observeHttp('forms', '/api/v1/forms/:formId', 'GET', 200, 0.004);
    m.observeHttp('forms', '/api/v1/forms/:formId', 'GET', 200, 0.3);
    m.observeHttp('forms', '/api/v1/forms/:formId', 'GET', 404, 0.001);
    m.bus.observePublish('odd "topic"\\\n', 0.002);
    m.bus.setLag('g', 't', 2, 7);
    m.bus.setLag('g', 't', 2, 0);
    m.bus.deadLettered('g', 't');
    m.countNotificationAttempt('email', 'retrying');
    m.countMongoCommand('forms', 'insert');
    m.countMongoCommand('forms', 'insert');
    m.countMongoCommand('accounts', 'find');
    const samples = await scrape(m);
    const route = { service: 'forms', route: '/api/v1/forms/:formId', method: 'GET' };
    expect(sumOf(samples, 'formgate_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(sumOf(samples, 'formgate_http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(sumOf(samples, 'formgate_http_request_duration_seconds_count', route)).toBe(3);
    expect(sumOf(samples, 'formgate_http_request_duration_seconds_bucket', { ...route, le: '0.005' })).toBe(2);
    expect(sumOf(samples, 'formgate_bus_publish_duration_seconds_count', { topic: 'odd "topic"\\\n' })).toBe(1);
    expect(sumOf(samples, 'formgate_consumer_lag', { group: 'g', topic: 't', partition: '2' })).toBe(0);
    expect(sumOf(samples, 'formgate_dead_letters_total', { group: 'g', topic: 't' })).toBe(1);
    expect(sumOf(samples, 'formgate_notification_attempts_total', { channel: 'email', status: 'retrying' })).toBe(1);
    expect(sumOf(samples, 'formgate_mongo_commands_total', { db: 'forms', command: 'insert' })).toBe(2);
    expect(sumOf(samples, 'formgate_mongo_commands_total', { db: 'accounts', command: 'find' })).toBe(1);
  });
});

describe('HTTP metrics of a service app, and the /metrics listener', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('labels requests with the route template, mount path included, also when the route fails', async () => {
    const metrics = createMetrics({ defaults: false });
    const app = createServiceApp({ observe: { service: 'forms', metrics } });
    const router = express.Router();
    router.get('/:formId', (req, res, next) => {
      if (req.params.formId === 'missing') return next(new AppError('NOT_FOUND'));
      res.json({ id: req.params.formId });
    });
    app.use('/api/v1/forms', router);
    app.use(errorHandler(createLogger({ level: 'silent', name: 'test' })));
    const server = createHttpServer(app);
    const port = await listen(server, 0, '127.0.0.1');
    closers.push(() => closeServer(server));
    const base = `http://127.0.0.1:${port}`;
    for (const path of ['/api/v1/forms/f_1', '/api/v1/forms/f_2', '/api/v1/forms/missing', '/nowhere/secret-key']) {
      await (await fetch(`${base}${path}`)).arrayBuffer();
    }
    const samples = await scrape(metrics);
    const route = { service: 'forms', route: '/api/v1/forms/:formId', method: 'GET' };
    expect(sumOf(samples, 'formgate_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(sumOf(samples, 'formgate_http_requests_total', { ...route, status: '404' })).toBe(1);
    expect(sumOf(samples, 'formgate_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    // Never a raw path: no id or key reaches a label.
    expect(samples.some((s) => Object.values(s.labels).some((v) => /f_1|secret-key|missing/.test(v)))).toBe(false);
  });

  it('answers GET /metrics on its own port in the text format, and 404 for anything else', async () => {
    const metrics = createMetrics();
    metrics.countSubmission('spam');
    const served = await serveMetrics(metrics, { port: 0, host: '127.0.0.1' });
    closers.push(served.stop);
    const res = await fetch(`http://127.0.0.1:${served.port}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const samples = parsePrometheusText(await res.text());
    expect(sumOf(samples, 'formgate_ingest_submissions_total', { outcome: 'spam' })).toBe(1);
    expect(sumOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    expect((await fetch(`http://127.0.0.1:${served.port}/healthz`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${served.port}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});

describe('fast counters and histograms', () => {
  it('expose exactly what prom-client’s own Counter and Histogram would for the same observations', async () => {
    const buckets = [0.01, 0.1, 1];
    const registry = new Registry();
    const fastCounter = new FastCounter({ name: 'fast_total', help: 'h', labelNames: ['a', 'b'], registry });
    const fastHistogram = new FastHistogram({ name: 'fast_seconds', help: 'h', labelNames: ['a'], registry }, buckets);
    const reference = new Registry();
    const counter = new Counter({ name: 'fast_total', help: 'h', labelNames: ['a', 'b'], registers: [reference] });
    const histogram = new Histogram({
      name: 'fast_seconds',
      help: 'h',
      labelNames: ['a'],
      buckets,
      registers: [reference],
    });
    for (const [a, b, v] of [
      ['x', 'y', 0.005],
      ['x', 'y', 0.01],
      ['x', 'z', 0.5],
      ['w', 'y', 7],
      ['x', 'y', 0.2],
    ] as const) {
      fastCounter.inc(a, b);
      counter.inc({ a, b });
      fastHistogram.observe(v, a);
      histogram.observe({ a }, v);
    }
    const sorted = (text: string) =>
      parsePrometheusText(text)
        .map((s) => JSON.stringify([s.name, Object.entries(s.labels).sort(), s.value]))
        .sort();
    expect(sorted(await registry.metrics())).toEqual(sorted(await reference.metrics()));
  });
});

describe('parsePrometheusText', () => {
  it('refuses what a scraper would not parse', () => {
    expect(() => parsePrometheusText('metric{a="1"} 1\n')).not.toThrow();
    expect(() => parsePrometheusText('metric{a=1} 1\n')).toThrow(/bad labels/);
    expect(() => parsePrometheusText('metric one\n')).toThrow(/bad value/);
    expect(() => parsePrometheusText('2metric 1\n')).toThrow(/not a sample/);
  });
});
