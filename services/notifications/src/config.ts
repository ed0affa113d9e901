import { defineConfig, serviceEnv } from '@formgate/kit';
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
    /** The dashboard's base URL, for links in notification mails. */
    PUBLIC_URL: z.url().transform((u) => u.replace(/\/$/, '')),
  }),
);
