import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** Span attributes Formgate records: route templates, ids, counts and status codes only — never submission contents. */
export type TraceAttributes = Record<string, string | number | boolean>;

/** A span as the code that opened it sees it. */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): void;
  /** Marks the span failed (`error.type` is the error's class name; its message is never recorded). */
  fail(error?: unknown): void;
}

/** A carrier of W3C trace context: HTTP request headers or a bus message's `headers`. */
export type Carrier = Record<string, string | string[] | undefined>;

/**
 * The tracing of this process (docs/operations.md "Traces", ADR 51): explicit spans, W3C `traceparent`
 * propagation, OTLP/HTTP export. Made by `startTracing` in the composition root and passed in as a dependency; it
 * is `undefined` unless an OTLP endpoint is set, and every user checks it once when built and adds nothing when
 * tracing is off.
 */
export interface Tracing {
  /**
   * A SERVER span for one HTTP request, ended when `res` finishes (or closes) with its status code; `fn` runs with it
   * active. `continueFrom`: the carrier whose `traceparent` it continues (omit at the public edge: a new trace).
   * `route()` is read when the answer is sent: a route template, never the raw path.
   */
  server<T>(
    method: string,
    route: () => string,
    res: ServerResponse,
    continueFrom: IncomingHttpHeaders | undefined,
    fn: (span: TraceSpan) => T,
  ): T;
  /** A CLIENT span (an SMTP send, a webhook POST) around `fn`, a child of the active span. */
  client<T>(name: string, attributes: TraceAttributes, fn: (span: TraceSpan) => Promise<T>): Promise<T>;
  /** A PRODUCER span around `send`, which gets copies of `messages` carrying the span's `traceparent` header. */
  producer<M extends { headers?: Record<string, string> }>(
    system: string,
    topic: string,
    messages: M[],
    send: (traced: M[]) => Promise<void>,
  ): Promise<void>;
  /**
   * A CONSUMER span for one handler call on a batch: it continues the trace of the batch's first message that
   * carries a `traceparent` and links every message's context (ADR 51); `handle` runs with it active.
   */
  consumer(
    system: string,
    group: string,
    topic: string,
    batch: { headers: Record<string, string> }[],
    handle: () => Promise<void>,
  ): Promise<void>;
  /** Writes the active span's `traceparent` (and `tracestate`) into `carrier`, replacing any already there. */
  inject(carrier: Carrier): void;
  /** Ends the export: pending spans are flushed (bounded), the exporter shut down. */
  stop(): Promise<void>;
}
