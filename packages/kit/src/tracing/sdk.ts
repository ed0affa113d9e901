import {
  type Context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  type Link,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from './config.ts';
import type { TraceSpan, Tracing } from './tracing.ts';

/** Marks this module as evaluated: the unit test checks a process without an endpoint never gets here. */
(globalThis as Record<symbol, unknown>)[Symbol.for('formgate.tracing.sdk-loaded')] = true;

/** At most this many links on a batch's CONSUMER span (a batch may hold hundreds of messages). */
const MAX_LINKS = 128;
/** How long `stop()` waits for the last export. */
const STOP_TIMEOUT_MS = 5_000;

/** `key1=value1,key2=value2` (values percent-encoded), as `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_EXPORTER_OTLP_HEADERS`. */
export function parseKeyValues(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    try {
      out[key] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      // A malformed value is dropped, as the specification allows.
    }
  }
  return out;
}

/** `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` (default `parentbased_always_on`). */
export function samplerFrom(env: TracingConfig): Sampler {
  const ratio = () => {
    const value = Number(env.OTEL_TRACES_SAMPLER_ARG ?? '1');
    return new TraceIdRatioBasedSampler(Number.isFinite(value) && value >= 0 && value <= 1 ? value : 1);
  };
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

const positive = (raw: string | undefined, fallback: number) => {
  const value = Number(raw);
  return raw !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
};

function handle(span: Span): TraceSpan {
  return {
    setAttribute: (key, value) => void span.setAttribute(key, value),
    fail: (error) => failed(span, error),
  };
}

/** Only the error's class: a message may quote hostile input. */
function failed(span: Span, error?: unknown) {
  span.setStatus({ code: SpanStatusCode.ERROR });
  const type = error instanceof Error ? error.name || error.constructor.name : 'Error';
  span.setAttribute('error.type', type);
}

/** The SDK behind `Tracing`: a tracer provider, no global registration (nothing else in the process is patched). */
export function createSdkTracing(
  serviceName: string,
  url: string,
  env: TracingConfig,
  known: Record<string, string> = {},
): Tracing {
  const attributes = { ...known, ...parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES) };
  const name = env.OTEL_SERVICE_NAME?.trim() || attributes['service.name'] || serviceName;
  const exporter = new OTLPTraceExporter({
    url,
    headers: parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS),
    timeoutMillis: positive(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT, 10_000),
  });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ ...attributes, 'service.name': name }),
    sampler: samplerFrom(env),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY, 5_000),
        maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE, 2_048),
        maxExportBatchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512),
        exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT, 30_000),
      }),
    ],
  });
  const tracer = provider.getTracer('formgate');
  const contexts = new AsyncLocalStorageContextManager().enable();
  const propagator = new W3CTraceContextPropagator();
  const extract = (carrier: object) => propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  const within = <T>(parent: Context, span: Span, fn: (span: TraceSpan) => T) =>
    contexts.with(trace.setSpan(parent, span), () => fn(handle(span)));
  const around = async (parent: Context, span: Span, fn: (span: TraceSpan) => Promise<unknown>) => {
    try {
      await within(parent, span, fn);
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  };

  return {
    server(method, route, res, continueFrom, fn) {
      const parent = continueFrom ? extract(continueFrom) : ROOT_CONTEXT;
      const span = tracer.startSpan(
        method,
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
        parent,
      );
      res.once('close', () => {
        const template = route();
        span.updateName(`${method} ${template}`);
        span.setAttribute('http.route', template);
        span.setAttribute('http.response.status_code', res.statusCode);
        if (!res.writableFinished) failed(span, new Error('aborted'));
        else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      });
      return within(parent, span, fn);
    },
    async client(name, attrs, fn) {
      const parent = contexts.active();
      const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes: attrs }, parent);
      let result: Awaited<ReturnType<typeof fn>> | undefined;
      await around(parent, span, async (s) => {
        result = await fn(s);
      });
      return result as Awaited<ReturnType<typeof fn>>;
    },
    async producer(system, topic, messages, send) {
      const parent = contexts.active();
      const span = tracer.startSpan(
        `send ${topic}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': system,
            'messaging.operation.type': 'send',
            'messaging.destination.name': topic,
            'messaging.batch.message_count': messages.length,
          },
        },
        parent,
      );
      const carrier: Record<string, string> = {};
      propagator.inject(trace.setSpan(parent, span), carrier, defaultTextMapSetter);
      const traced = messages.map((m) => ({ ...m, headers: { ...m.headers, ...carrier } }));
      await around(parent, span, () => send(traced));
    },
    async consumer(system, group, topic, batch, run) {
      let parent: Context | undefined;
      const links: Link[] = [];
      for (const message of batch) {
        if (message.headers.traceparent === undefined) continue;
        const context = extract(message.headers);
        const remote = trace.getSpanContext(context);
        if (!remote) continue;
        parent ??= context;
        if (links.length < MAX_LINKS) links.push({ context: remote });
      }
      const from = parent ?? ROOT_CONTEXT;
      const span = tracer.startSpan(
        `process ${topic}`,
        {
          kind: SpanKind.CONSUMER,
          links,
          attributes: {
            'messaging.system': system,
            'messaging.operation.type': 'process',
            'messaging.destination.name': topic,
            'messaging.consumer.group.name': group,
            'messaging.batch.message_count': batch.length,
          },
        },
        from,
      );
      await around(from, span, run);
    },
    inject(carrier) {
      delete carrier.traceparent;
      delete carrier.tracestate;
      propagator.inject(contexts.active(), carrier, defaultTextMapSetter);
    },
    async stop() {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        provider.shutdown().catch(() => undefined),
        new Promise((resolve) => {
          timer = setTimeout(resolve, STOP_TIMEOUT_MS);
        }),
      ]);
      clearTimeout(timer);
      contexts.disable();
    },
  };
}
