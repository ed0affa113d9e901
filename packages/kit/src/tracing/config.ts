import { z } from 'zod';

const optional = z.string().optional();

/**
 * The OpenTelemetry variables a process reads (ADR 51), as the specification names them. Kept as text: the SDK
 * specification asks that an unusable value be ignored (the default applies), not that it stop the boot, so
 * `otlpTracesUrl` and the SDK's setup interpret them. Spread into every process's config schema (`commonEnv`).
 */
export const tracingEnv = {
  OTEL_SDK_DISABLED: optional,
  OTEL_TRACES_EXPORTER: optional,
  OTEL_EXPORTER_OTLP_ENDPOINT: optional,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional,
  OTEL_EXPORTER_OTLP_HEADERS: optional,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: optional,
  OTEL_EXPORTER_OTLP_TIMEOUT: optional,
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: optional,
  OTEL_SERVICE_NAME: optional,
  OTEL_RESOURCE_ATTRIBUTES: optional,
  OTEL_TRACES_SAMPLER: optional,
  OTEL_TRACES_SAMPLER_ARG: optional,
  OTEL_BSP_SCHEDULE_DELAY: optional,
  OTEL_BSP_MAX_QUEUE_SIZE: optional,
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: optional,
  OTEL_BSP_EXPORT_TIMEOUT: optional,
};

/** The parsed OpenTelemetry settings (`tracingEnv`): what `startTracing` reads, never the environment itself. */
export type TracingConfig = Partial<Record<keyof typeof tracingEnv, string>>;
