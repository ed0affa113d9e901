import { defineConfig, previousSecretEnv, secretEnv, serviceEnv } from '@formgate/kit';
import { SMTP_POOL_DEFAULTS } from '@formgate/mail';
import { z } from 'zod';

/** `WEBHOOKS_ALLOW_PRIVATE_TARGETS`: `true` or `false` (default). Shared with the embedded host's config. */
export const webhooksAllowPrivateTargetsEnv = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

export const loadNotificationsConfig = defineConfig(
  z.object({
    ...serviceEnv,
    PORT: serviceEnv.PORT.default(4004),
    /** Outgoing mail, read as the gateway reads it: `smtp://` or `smtps://`; without it, files under `MAIL_DIR`. */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'expected smtp:// or smtps://')
      .optional(),
    MAIL_FROM: z.string().min(3).default('Formgate <no-reply@formgate.local>'),
    /** SMTP connections kept open at most: the mails in flight at once (the provider's limit bounds it). */
    SMTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(100).default(SMTP_POOL_DEFAULTS.maxConnections),
    /** Messages per SMTP connection before it is replaced. */
    SMTP_MAX_MESSAGES: z.coerce.number().int().min(1).max(100_000).default(1000),
    MAIL_DIR: z.string().default('./data/mail'),
    /** The forms service's file link secret: mails link to a submission's files (`/api/v1/files/{token}`). */
    FILE_LINK_SECRET: secretEnv,
    /** Signs the verification links of notification addresses; ≥ 32 characters, the same on every instance. */
    NOTIFICATIONS_LINK_SECRET: secretEnv,
    /** During a rotation (ADR 50): the replaced `NOTIFICATIONS_LINK_SECRET`, verifying only (links live 24 h). */
    NOTIFICATIONS_LINK_SECRET_PREVIOUS: previousSecretEnv,
    /**
     * `true` lets webhooks go to loopback and private addresses (tests, self-hosted receivers on the same network);
     * off by default: such targets are refused at creation and at connect time.
     */
    WEBHOOKS_ALLOW_PRIVATE_TARGETS: webhooksAllowPrivateTargetsEnv,
    /**
     * How long a claimed attempt may go without an outcome before another instance makes the next one (a crash
     * between send and record: the one possible duplicate). Keep it above the SMTP and webhook timeouts.
     */
    NOTIFICATIONS_ATTEMPT_LEASE_MS: z.coerce.number().int().min(5_000).max(3_600_000).default(180_000),
    /** The dashboard's base URL, for links in notification mails. */
    PUBLIC_URL: z.url().transform((u) => u.replace(/\/$/, '')),
  }),
);
