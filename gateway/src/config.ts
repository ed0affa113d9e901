import { resolve } from 'node:path';
import { commonEnv, parseConfig, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

const list = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  );
const urlList = z
  .string()
  .transform((s) => s.split(',').map((u) => u.trim()))
  .pipe(z.array(z.url()).min(1));

/** What both gateways read: accounts, mail, limits. */
const accountEnv = {
  /** `smtp://user:pass@host:587`; without it mail is written to `DATA_DIR/mail` (embedded) and its link logged. */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Formgate <no-reply@formgate.local>'),
  AUTH_SIGN_IN_PER_MINUTE: z.coerce.number().int().positive().default(10),
  USER_LOOKUPS_PER_MINUTE: z.coerce.number().int().positive().default(30),
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(48),
  /** Load balancers in front of the gateway, whose `X-Forwarded-For` is believed. Comma-separated IPs. */
  TRUSTED_PROXIES: list,
};

const accounts = (c: z.infer<z.ZodObject<typeof accountEnv>>) => ({
  smtpUrl: c.SMTP_URL,
  mailFrom: c.MAIL_FROM,
  signInPerMinute: c.AUTH_SIGN_IN_PER_MINUTE,
  lookupsPerMinute: c.USER_LOOKUPS_PER_MINUTE,
  invitationTtlSeconds: Math.round(c.INVITATION_TTL_HOURS * 3600),
  trustedProxies: c.TRUSTED_PROXIES,
});

const EmbeddedEnvSchema = z.object({
  ...commonEnv,
  ...accountEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  PUBLIC_URL: z.url().optional(),
  /** Signs sessions; otherwise one is generated into `DATA_DIR/auth-secret`. */
  AUTH_SECRET: secretEnv.optional(),
  BILLING_SUBMISSIONS_PER_MONTH: z.coerce.number().int().positive().default(50_000),
  BILLING_EMAILS_PER_MONTH: z.coerce.number().int().nonnegative().default(1_000),
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
    publicUrl: c.PUBLIC_URL?.replace(/\/$/, ''),
    authSecret: c.AUTH_SECRET,
    submissionsPerMonth: c.BILLING_SUBMISSIONS_PER_MONTH,
    emailsPerMonth: c.BILLING_EMAILS_PER_MONTH,
    sqliteSynchronous: c.SQLITE_SYNCHRONOUS,
    ...accounts(c),
  };
}

const GatewayEnvSchema = z.object({
  ...serviceEnv,
  ...accountEnv,
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  PUBLIC_URL: z.url(),
  AUTH_SECRET: secretEnv,
  /** Where mail goes without SMTP_URL. */
  MAIL_DIR: z.string().default('./data/mail'),
  /** Each a comma-separated list of a service's instances, used round-robin. */
  FORMS_URL: urlList,
  INGEST_URL: urlList,
  BILLING_URL: urlList,
  ORGS_URL: urlList,
});

/** The distributed gateway: where each service listens, its accounts database and the shared secrets. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env) {
  const c = parseConfig(GatewayEnvSchema, env);
  return { ...c, publicUrl: c.PUBLIC_URL.replace(/\/$/, ''), ...accounts(c) };
}
