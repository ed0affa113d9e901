import { commonEnv, parseConfig } from '@formgate/kit';
import { z } from 'zod';

export function loadNotificationsConfig(env: Record<string, string | undefined> = process.env) {
  return parseConfig(
    z.object({
      ...commonEnv,
      PORT: z.coerce.number().int().min(0).max(65535).default(4004),
      HOST: z.string().default('0.0.0.0'),
    }),
    env,
  );
}
