import { defineConfig, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

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
    MAIL_DIR: z.string().default('./data/mail'),
    /** The forms service's file link secret: mails link to a submission's files (`/api/v1/files/{token}`). */
    FILE_LINK_SECRET: secretEnv,
    /** Signs the verification links of notification addresses; ≥ 32 characters, the same on every instance. */
    NOTIFICATIONS_LINK_SECRET: secretEnv,
    /** The dashboard's base URL, for links in notification mails. */
    PUBLIC_URL: z.url().transform((u) => u.replace(/\/$/, '')),
  }),
);
