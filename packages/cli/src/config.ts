import { parseConfig } from '@formgate/kit';
import { z } from 'zod';

const CliEnvSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Base URL of a running Formgate; defaults to http://localhost:$PORT. */
  FORMGATE_URL: z.url().optional(),
  /** An organization API key (`fg_…`): every forms and submissions command uses it. */
  FORMGATE_API_KEY: z.string().min(1).optional(),
  /** The account password for `account` commands (otherwise read from standard input). */
  FORMGATE_PASSWORD: z.string().min(1).optional(),
});

export type CliConfig = ReturnType<typeof loadCliConfig>;

export function loadCliConfig(env: Record<string, string | undefined> = process.env) {
  // An exported-but-empty variable counts as unset.
  const c = parseConfig(CliEnvSchema, Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  return {
    baseUrl: (c.FORMGATE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, ''),
    apiKey: c.FORMGATE_API_KEY,
    password: c.FORMGATE_PASSWORD,
  };
}
