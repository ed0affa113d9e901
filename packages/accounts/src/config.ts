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

/** What every gateway (embedded or distributed) reads for accounts, mail and the edge's limits. */
export const accountEnv = {
  /** `smtp://user:pass@host:587`; without it mail is written to a directory and its link logged (embedded). */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Formgate <no-reply@formgate.local>'),
  /** SMTP connections kept open at most: the mails in flight at once (the provider's limit bounds it). */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(10),
  /** Messages per SMTP connection before it is replaced. */
  SMTP_MAX_MESSAGES: z.coerce.number().int().min(1).max(100_000).default(1000),
  AUTH_SIGN_IN_PER_MINUTE: z.coerce.number().int().positive().default(10),
  USER_LOOKUPS_PER_MINUTE: z.coerce.number().int().positive().default(30),
  INVITATION_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 30)
    .default(48),
  /** Load balancers in front of the gateway, whose `X-Forwarded-For` is believed. Comma-separated IPs. */
  TRUSTED_PROXIES: list,
  /** Deadline of every accounts database call; past it credentials answer 503 AUTH_UNAVAILABLE. */
  AUTH_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(3_000),
  /** How long a verified API key is accepted without asking the database (0: no cache). */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  /** Past the TTL, how long a cached key is still accepted while the database does not answer (0: never). */
  API_KEY_CACHE_MAX_STALE_MS: z.coerce.number().int().min(0).max(3_600_000).default(300_000),
  API_KEY_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
};

export type AccountEnv = z.infer<z.ZodObject<typeof accountEnv>>;

/** The parts of `createAccounts`' deps (and the gateway's limits) that come from the environment. */
export const accountSettings = (c: AccountEnv) => ({
  smtpUrl: c.SMTP_URL,
  mailFrom: c.MAIL_FROM,
  smtpPool: { maxConnections: c.SMTP_MAX_CONNECTIONS, maxMessages: c.SMTP_MAX_MESSAGES },
  signInPerMinute: c.AUTH_SIGN_IN_PER_MINUTE,
  lookupsPerMinute: c.USER_LOOKUPS_PER_MINUTE,
  invitationTtlSeconds: Math.round(c.INVITATION_TTL_HOURS * 3600),
  trustedProxies: c.TRUSTED_PROXIES,
  authTimeoutMs: c.AUTH_TIMEOUT_MS,
  apiKeyCache: { ttlMs: c.API_KEY_CACHE_TTL_MS, maxStaleMs: c.API_KEY_CACHE_MAX_STALE_MS, size: c.API_KEY_CACHE_SIZE },
});
