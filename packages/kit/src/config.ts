import { z } from 'zod';
import { tracingEnv } from './tracing/config.ts';

/**
 * Parses an environment into a typed config. On failure throws one error listing every problem, so a bad
 * deployment is fixed in one go.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `  - ${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
}

type Env = Record<string, string | undefined>;

/**
 * Every process's config loader has this one shape: `loadXConfig(env = process.env)` parses the environment with
 * the process's zod schema into a typed object whose keys are the variables' names (derived values are zod
 * transforms). An exported-but-empty variable counts as unset.
 */
export function defineConfig<S extends z.ZodType>(schema: S) {
  return (env: Env = process.env): z.infer<S> =>
    parseConfig(schema, Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
}

/** Shared pieces of every process's config schema. */
export const commonEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /**
   * SIGTERM → exit: readiness turns 503, in-flight requests finish, consumers commit and stop. Past this deadline
   * the process exits 1 with a log line. Default 25 s, under Kubernetes' 30 s `terminationGracePeriodSeconds`.
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(25_000),
  /**
   * After SIGTERM, how long the process keeps accepting new connections while `/readyz` answers 503, so a load
   * balancer polling readiness stops sending first. 0 (default) on Kubernetes, whose preStop hook does this.
   */
  SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  ...tracingEnv,
};

export const brokersEnv = z
  .string()
  .min(1)
  .transform((s) => s.split(',').map((b) => b.trim()))
  .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port')));

export const secretEnv = z.string().min(32, 'must be at least 32 characters');

/**
 * `<NAME>_PREVIOUS` (ADR 50): the replaced value of a secret during a rotation, verifying only. Optional; empty counts
 * as unset, so `NAME_PREVIOUS: ${NAME_PREVIOUS:-}` in a compose file works outside a rotation.
 */
export const previousSecretEnv = z.preprocess((v) => (v === '' ? undefined : v), secretEnv.optional());

/**
 * `METRICS_PORT`: where `GET /metrics` (Prometheus) is served, on a listener of its own beside the process's port
 * (ADR 46: never on the public one). Unset: not served (the metrics are still kept; nothing listens).
 */
export const metricsPortEnv = z.coerce.number().int().min(0).max(65535).optional();
