export { type TracingConfig, tracingEnv } from './config.ts';
export type { Carrier, TraceAttributes, TraceSpan, Tracing } from './tracing.ts';

import type { TracingConfig } from './config.ts';
import type { Tracing } from './tracing.ts';

/** The OTLP/HTTP traces URL `config` asks for, if any (the signal-specific variable wins, as the spec says). */
export function otlpTracesUrl(config: TracingConfig): string | undefined {
  if (config.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (config.OTEL_TRACES_EXPORTER && config.OTEL_TRACES_EXPORTER.trim().toLowerCase() === 'none') return undefined;
  const traces = config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = config.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * This process's tracing when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set in
 * `config` (the process's parsed config: `tracingEnv` is in `commonEnv`), `undefined` (tracing off) otherwise;
 * `serviceName` is the default `service.name` (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win). The OpenTelemetry SDK is imported only then: a process without the variable never
 * loads it. A composition root calls it once, before it builds the services, passes the result to what traces (like
 * the clock) and calls its `stop()` last on shutdown.
 */
export async function startTracing(
  serviceName: string,
  config: TracingConfig,
  /** Resource attributes the process knows (e.g. `service.instance.id`); `OTEL_RESOURCE_ATTRIBUTES` wins. */
  resource: Record<string, string> = {},
): Promise<Tracing | undefined> {
  const url = otlpTracesUrl(config);
  if (url === undefined) return undefined;
  const { createSdkTracing } = await import('./sdk.ts');
  return createSdkTracing(serviceName, url, config, resource);
}
