import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commonEnv, defineConfig } from '../src/config.ts';
import { otlpTracesUrl, startTracing } from '../src/tracing/index.ts';
import type { Tracing } from '../src/tracing/tracing.ts';

const SDK_LOADED = Symbol.for('formgate.tracing.sdk-loaded');
const sdkLoaded = () => (globalThis as Record<symbol, unknown>)[SDK_LOADED] === true;

describe('tracing (ADR 51)', () => {
  // First in this file (its own worker): nothing else has imported the SDK yet.
  it('is off and loads nothing of the OpenTelemetry SDK without an OTLP endpoint', async () => {
    expect(await startTracing('gateway', {})).toBeUndefined();
    expect(await startTracing('gateway', { OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(sdkLoaded()).toBe(false);
  });

  it('reads the standard variables: the traces endpoint wins, OTEL_SDK_DISABLED and exporter none turn it off', () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
    expect(
      otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t/x' }),
    ).toBe('http://t/x');
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(
      otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });

  it('reads them from the process’s parsed config, where an empty variable counts as unset', () => {
    const load = defineConfig(z.object(commonEnv));
    const config = load({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' });
    expect(otlpTracesUrl(config)).toBe('http://c:4318/v1/traces');
    expect(otlpTracesUrl(load({ PATH: '/bin' }))).toBeUndefined();
  });

  it('with an endpoint: loads the SDK, propagates W3C context through a producer and a consumer, exports on stop', async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    let t: Tracing | undefined;
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      t = await startTracing('forms', { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_SERVICE_NAME: 'renamed' });
      expect(t).toBeDefined();
      expect(sdkLoaded()).toBe(true);
      let sent: { headers?: Record<string, string> }[] = [];
      await t?.producer('test', 'a.topic', [{ headers: { keep: '1' } }], async (traced) => {
        sent = traced;
      });
      const traceparent = sent[0]?.headers?.traceparent ?? '';
      expect(sent[0]?.headers?.keep).toBe('1');
      expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      const carrier: Record<string, string> = {};
      await t?.consumer('test', 'g', 'a.topic', [{ headers: { traceparent } }], async () => t?.inject(carrier));
      // Inside the consumer span: same trace, a new span.
      expect(carrier.traceparent?.slice(0, 35)).toBe(traceparent.slice(0, 35));
      expect(carrier.traceparent).not.toBe(traceparent);
      await t?.stop();
      const exported = bodies.join('\n');
      expect(exported).toContain('send a.topic');
      expect(exported).toContain('process a.topic');
      expect(exported).toContain('renamed');
    } finally {
      await t?.stop();
      server.close();
    }
  });
});
