import { parseConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

export function loadOrgsConfig(env: Record<string, string | undefined> = process.env) {
  return parseConfig(z.object({ ...serviceEnv, PORT: serviceEnv.PORT.default(4005) }), env);
}
