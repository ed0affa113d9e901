import { defineConfig } from '@formgate/kit';
import { z } from 'zod';

export const loadCliConfig = defineConfig(
  z
    .object({
      PORT: z.coerce.number().int().min(1).max(65535).default(3000),
      /** Base URL of a running Formgate; defaults to http://localhost:$PORT. */
      FORMGATE_URL: z.url().optional(),
      /** An organization API key (`fg_…`): every forms and submissions command uses it. */
      FORMGATE_API_KEY: z.string().min(1).optional(),
      /** The account password for `account` commands (otherwise read from standard input). */
      FORMGATE_PASSWORD: z.string().min(1).optional(),
      /** The deployment's operator token, for `dlq` commands (embedded mode: the file DATA_DIR/operator-token). */
      FORMGATE_OPERATOR_TOKEN: z.string().min(1).optional(),
      /** The embedded deployment's data directory, for `secrets rotate|retire` (its secret files live there). */
      DATA_DIR: z.string().min(1).optional(),
    })
    .transform((c) => ({ ...c, FORMGATE_URL: (c.FORMGATE_URL ?? `http://localhost:${c.PORT}`).replace(/\/$/, '') })),
);

export type CliConfig = ReturnType<typeof loadCliConfig>;
