import { resolve } from 'node:path';
import { parseConfig } from '@formgate/kit';
import { z } from 'zod';

const CliEnvSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  DATA_DIR: z.string().default('./data'),
  /** Base URL of a running Formgate; defaults to http://localhost:$PORT. */
  FORMGATE_URL: z.url().optional(),
  /** Operator token or API key; defaults to the one in `$DATA_DIR/operator-token`. */
  FORMGATE_TOKEN: z.string().min(1).optional(),
});

export function loadCliConfig(env: Record<string, string | undefined> = process.env) {
  const c = parseConfig(CliEnvSchema, env);
  return {
    baseUrl: (c.FORMGATE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''),
    dataDir: resolve(c.DATA_DIR),
    token: c.FORMGATE_TOKEN,
  };
}
