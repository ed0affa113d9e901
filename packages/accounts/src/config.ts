import { loadPlans } from '@formgate/kit';
import { SMTP_POOL_DEFAULTS } from '@formgate/mail';
import { z } from 'zod';
import type { StripeSettings } from './billing/stripe-billing.ts';

const list = z
  .string()
  .default('')
  .transform((s) =>
    s
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
  );

const originList = list.pipe(z.array(z.url().transform((u) => new URL(u).origin)));

/** An optional setting where an empty value (`FOO=` in a compose file) means unset. */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** What every gateway (embedded or distributed) reads for accounts, mail and the edge's limits. */
export const accountEnv = {
  /** `smtp://user:pass@host:587`; without it mail is written to a directory and its link logged (embedded). */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Formgate <no-reply@formgate.local>'),
  /** SMTP connections kept open at most: the mails in flight at once (the provider's limit bounds it). */
  SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(SMTP_POOL_DEFAULTS.maxConnections),
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
  /**
   * Identity provider origins on a private network (or loopback) that single sign-on may call, comma-separated.
   * Providers at public addresses need no entry; any other is refused, so that registering a provider cannot make
   * the gateway call into its own network.
   */
  SSO_TRUSTED_IDP_ORIGINS: originList,
  /**
   * DNS servers (`ip` or `ip:port`, comma-separated) that look up the TXT records verifying single sign-on domains;
   * default: the system's resolvers.
   */
  DNS_SERVERS: list,
  /** Stripe's secret API key; without it billing is off (every organization on the default plan). */
  STRIPE_SECRET_KEY: unsetWhenEmpty(z.string()),
  /** The signing secret of the webhook endpoint `${PUBLIC_URL}/api/auth/stripe/webhook`; required with the key. */
  STRIPE_WEBHOOK_SECRET: unsetWhenEmpty(z.string()),
  /** The Stripe API's base URL (default Stripe's own); tests and local runs point it at stripe-mock. */
  STRIPE_API_URL: unsetWhenEmpty(z.url()),
  /** A JSON file that replaces the default plans (`@formgate/contracts` plans.ts). */
  PLANS_FILE: unsetWhenEmpty(z.string()),
};

export type AccountEnv = z.infer<z.ZodObject<typeof accountEnv>>;

/** Stripe settings from the environment: none without a key; a key without a webhook secret stops the boot. */
export function stripeSettings(c: AccountEnv): StripeSettings | undefined {
  if (!c.STRIPE_SECRET_KEY) return undefined;
  if (!c.STRIPE_WEBHOOK_SECRET)
    throw new Error(
      'STRIPE_SECRET_KEY is set but STRIPE_WEBHOOK_SECRET is not: set the signing secret of the webhook endpoint ' +
        '(…/api/auth/stripe/webhook), or unset STRIPE_SECRET_KEY to run with billing off',
    );
  return { secretKey: c.STRIPE_SECRET_KEY, webhookSecret: c.STRIPE_WEBHOOK_SECRET, apiUrl: c.STRIPE_API_URL };
}

/** The parts of `createAccounts`' deps (and the gateway's limits) that come from the environment. */
export const accountSettings = (c: AccountEnv) => ({
  smtpUrl: c.SMTP_URL,
  mailFrom: c.MAIL_FROM,
  smtpPool: { maxConnections: c.SMTP_MAX_CONNECTIONS, maxMessages: c.SMTP_MAX_MESSAGES },
  signInPerMinute: c.AUTH_SIGN_IN_PER_MINUTE,
  lookupsPerMinute: c.USER_LOOKUPS_PER_MINUTE,
  invitationTtlSeconds: Math.round(c.INVITATION_TTL_HOURS * 3600),
  trustedProxies: c.TRUSTED_PROXIES,
  trustedIdpOrigins: c.SSO_TRUSTED_IDP_ORIGINS,
  dnsServers: c.DNS_SERVERS,
  authTimeoutMs: c.AUTH_TIMEOUT_MS,
  apiKeyCache: { ttlMs: c.API_KEY_CACHE_TTL_MS, maxStaleMs: c.API_KEY_CACHE_MAX_STALE_MS, size: c.API_KEY_CACHE_SIZE },
  stripe: stripeSettings(c),
  plans: loadPlans(c.PLANS_FILE),
});
