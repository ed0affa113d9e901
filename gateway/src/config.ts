import { resolve } from 'node:path';
import { accountEnv } from '@formgate/accounts';
import { defineConfig, previousSecretEnv, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';
import { siteEnv } from './site-config.ts';

const urlList = z
  .string()
  .transform((s) => s.split(',').map((u) => u.trim()))
  .pipe(z.array(z.url()).min(1));

/**
 * Scalar's browser bundle (`standalone.js`) behind `/docs/api`. Unset: resolved from `@scalar/api-reference` in
 * node_modules; the production image sets it to the copy in its runtime tree (ADR 47). A path with no file there:
 * `/docs/api` answers 404.
 */
export const apiReferenceEnv = {
  API_REFERENCE_BUNDLE: z
    .string()
    .min(1)
    .transform((f) => resolve(f))
    .optional(),
};

export const GatewayEnvSchema = z.object({
  ...serviceEnv,
  ...accountEnv,
  ...siteEnv,
  ...apiReferenceEnv,
  /** The plans file the billing service reads (`/api/v1/site` shows its default plan's limits). */
  PLANS_FILE: z.string().min(1).optional(),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url().transform((u) => u.replace(/\/$/, '')),
  AUTH_SECRET: secretEnv,
  AUTH_SECRET_PREVIOUS: previousSecretEnv,
  /** Bearer token of the operator API (`/api/ops/*`: dead letters); without it that API answers 404. */
  OPERATOR_TOKEN: secretEnv.optional(),
  /** During a rotation (ADR 50): the replaced operator token, still accepted until removed. */
  OPERATOR_TOKEN_PREVIOUS: previousSecretEnv,
  /** The built dashboard (`pnpm --filter @formgate/web build`); default `web/dist` of this checkout. */
  WEB_DIR: z
    .string()
    .transform((d) => resolve(d))
    .optional(),
  /** Where mail goes without SMTP_URL. */
  MAIL_DIR: z.string().default('./data/mail'),
  /** Each a comma-separated list of a service's instances, used round-robin. */
  FORMS_URL: urlList,
  INGEST_URL: urlList,
  /**
   * Where a change of settings is settled on every ingest instance (read your own settings, ADR 69): URLs whose
   * host names resolve to every instance — Kubernetes' headless Service `ingest-peers`; compose's service name.
   * Default: INGEST_URL.
   */
  INGEST_PEERS_URL: urlList.optional(),
  BILLING_URL: urlList,
  ORGS_URL: urlList,
  /** Optional: without it the notification routes (delivery log, resend, replay) answer 503. */
  NOTIFICATIONS_URL: urlList.optional(),
  /** Deadline for an API service's response headers; past it the gateway answers 504 UPSTREAM_TIMEOUT. */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** The same for ingest, longer: its answer is sent only after the log acknowledged the submission. */
  INGEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
});

export type GatewayConfig = z.infer<typeof GatewayEnvSchema>;

/** The distributed gateway: where each service listens, its accounts database and the shared secrets. */
export const loadGatewayConfig = defineConfig(GatewayEnvSchema);
