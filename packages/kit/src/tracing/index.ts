export type { Carrier, TraceAttributes, TraceSpan, Tracing } from './tracing.ts';

import type { Tracing } from './tracing.ts';

/** This process's tracing, or `undefined` when it is off (the default). Set by `startTracing`. */
export let tracing: Tracing | undefined;

/** The OTLP/HTTP traces URL `env` asks for, if any (the signal-specific variable wins, as the spec says). */
export function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER && env.OTEL_TRACES_EXPORTER.trim().toLowerCase() === 'none') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

/**
 * Starts tracing once per process when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is
 * set; `serviceName` is the default `service.name` (`OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` win). The
 * OpenTelemetry SDK is imported only then: a process without the variable never loads it. Call it from the
 * composition root before the services are built (they decide once whether to trace).
 */
export async function startTracing(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
  /** Resource attributes the process knows (e.g. `service.instance.id`); `OTEL_RESOURCE_ATTRIBUTES` wins. */
  resource: Record<string, string> = {},
) {
  if (tracing) return tracing;
  const url = otlpTracesUrl(env);
  if (url === undefined) return undefined;
  const { createSdkTracing } = await import('./sdk.ts');
  tracing = createSdkTracing(serviceName, url, env, resource);
  return tracing;
}

/** Flushes and stops this process's tracing (nothing when it is off); tracing is off afterwards. */
export async function stopTracing() {
  const current = tracing;
  tracing = undefined;
  await current?.stop();
}
