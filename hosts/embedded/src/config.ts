import { resolve } from 'node:path';
import { accountEnv } from '@formgate/accounts';
import { billingEnv } from '@formgate/billing';
import { clamavEnv } from '@formgate/forms';
import { apiReferenceEnv, siteEnv } from '@formgate/gateway';
import { captchaEnv } from '@formgate/ingest';
import { commonEnv, defineConfig, metricsPortEnv, previousSecretEnv, secretEnv } from '@formgate/kit';
import { webhooksAllowPrivateTargetsEnv } from '@formgate/notifications';
import { z } from 'zod';

export const EmbeddedEnvSchema = z.object({
  ...commonEnv,
  ...accountEnv,
  ...siteEnv,
  ...apiReferenceEnv,
  ...billingEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  /** `GET /metrics` of the whole process on a port of its own (ADR 46); unset: not served. */
  METRICS_PORT: metricsPortEnv,
  DATA_DIR: z
    .string()
    .default('./data')
    .transform((d) => resolve(d)),
  PUBLIC_URL: z
    .url()
    .transform((u) => u.replace(/\/$/, ''))
    .optional(),
  /** Signs sessions; otherwise one is generated into `DATA_DIR/auth-secret`. */
  AUTH_SECRET: secretEnv.optional(),
  AUTH_SECRET_PREVIOUS: previousSecretEnv,
  /** Bearer token of the operator API (`/api/ops/*`); otherwise one is generated into `DATA_DIR/operator-token`. */
  OPERATOR_TOKEN: secretEnv.optional(),
  /** During a rotation (ADR 50), beside an `OPERATOR_TOKEN` from the environment: the replaced one, still accepted. */
  OPERATOR_TOKEN_PREVIOUS: previousSecretEnv,
  /** Signs links to uploaded files; otherwise one is generated into `DATA_DIR/file-link-secret`. */
  FILE_LINK_SECRET: secretEnv.optional(),
  /** The replaced `FILE_LINK_SECRET` during a rotation: verifies only (file secrets: `DATA_DIR/<name>.previous`). */
  FILE_LINK_SECRET_PREVIOUS: previousSecretEnv,
  /** Keys the address index and signs erasure receipts (docs/privacy.md); unset: `DATA_DIR/privacy-key`. */
  PRIVACY_KEY: secretEnv.optional(),
  PRIVACY_KEY_PREVIOUS: previousSecretEnv,
  /** Signs the verification links of notification addresses; otherwise generated into `DATA_DIR`. */
  NOTIFICATIONS_LINK_SECRET: secretEnv.optional(),
  /** The replaced `NOTIFICATIONS_LINK_SECRET` during a rotation: verifies only. */
  NOTIFICATIONS_LINK_SECRET_PREVIOUS: previousSecretEnv,
  /** Signs ALTCHA challenges and time-trap stamps (a key per form); otherwise generated into `DATA_DIR/ingest-secret`. */
  INGEST_SECRET: secretEnv.optional(),
  /** The replaced `INGEST_SECRET` during a rotation: verifies stamps and challenges only. */
  INGEST_SECRET_PREVIOUS: previousSecretEnv,
  /** Malware scanning of uploaded files by clamd (`CLAMAV_ADDRESS`); unset: files are not scanned. */
  ...clamavEnv,
  /** Captcha verification: the providers' siteverify URLs (tests point them at a local verifier) and timeout. */
  ...captchaEnv,
  /** `true`: webhooks may go to loopback and private addresses (tests, receivers on the same network). */
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: webhooksAllowPrivateTargetsEnv,
  /** The built dashboard (`pnpm --filter @formgate/web build`); default `web/dist` of this checkout. */
  WEB_DIR: z
    .string()
    .transform((d) => resolve(d))
    .optional(),
  SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  /**
   * How much lower the services thread's CPU priority is than the threads an answer waits for (Linux `nice`, ADR 84):
   * 15 by default; 0 keeps the process's, for a session that runs other CPU-heavy work beside Formgate (a test suite).
   */
  SERVICES_THREAD_NICENESS: z.coerce.number().int().min(0).max(19).default(15),
});

export type EmbeddedConfig = z.infer<typeof EmbeddedEnvSchema>;

/** The embedded host's whole configuration, parsed once; a bad value stops the boot listing every problem. */
export const loadEmbeddedConfig = defineConfig(EmbeddedEnvSchema);
