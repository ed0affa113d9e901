import { resolve } from 'node:path';
import { commonEnv, parseConfig, secretEnv } from '@formgate/kit';
import { z } from 'zod';

const EmbeddedEnvSchema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_URL: z.url().optional(),
  /** Fixed operator token; otherwise one is generated into `DATA_DIR/operator-token`. */
  OPERATOR_TOKEN: z.string().min(24).optional(),
  BILLING_SUBMISSIONS_PER_MONTH: z.coerce.number().int().positive().default(50_000),
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
});

export type EmbeddedConfig = ReturnType<typeof loadEmbeddedConfig>;

/** The embedded host's whole configuration, parsed once; a bad value stops the boot listing every problem. */
export function loadEmbeddedConfig(env: Record<string, string | undefined> = process.env) {
  const c = parseConfig(EmbeddedEnvSchema, env);
  return {
    logLevel: c.LOG_LEVEL,
    port: c.PORT,
    host: c.HOST,
    dataDir: resolve(c.DATA_DIR),
    publicUrl: (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''),
    operatorToken: c.OPERATOR_TOKEN,
    submissionsPerMonth: c.BILLING_SUBMISSIONS_PER_MONTH,
    sqliteSynchronous: c.SQLITE_SYNCHRONOUS,
  };
}

const urlList = z
  .string()
  .transform((s) => s.split(',').map((u) => u.trim()))
  .pipe(z.array(z.url()).min(1));

const GatewayEnvSchema = z.object({
  ...commonEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  PUBLIC_URL: z.url(),
  IDENTITY_SECRET: secretEnv,
  OPERATOR_TOKEN: z.string().min(24),
  /** Each a comma-separated list of a service's instances, used round-robin. */
  FORMS_URL: urlList,
  INGEST_URL: urlList,
  BILLING_URL: urlList,
});

/** The distributed gateway's configuration: where each service listens, and the shared secrets. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env) {
  return parseConfig(GatewayEnvSchema, env);
}
