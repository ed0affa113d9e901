import { commonEnv, defineConfig } from '@formgate/kit';
import { z } from 'zod';

export const loadNotificationsConfig = defineConfig(
  z.object({
    ...commonEnv,
    PORT: z.coerce.number().int().min(0).max(65535).default(4004),
    HOST: z.string().default('0.0.0.0'),
  }),
);
