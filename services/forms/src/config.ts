import { fileStoreEnv } from '@formgate/host-distributed/file-store';
import { defineConfig, previousSecretEnv, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';
import { clamavEnv } from './files/clamav-scanner.ts';

export const loadFormsConfig = defineConfig(
  z.object({
    ...serviceEnv,
    ...fileStoreEnv,
    ...clamavEnv,
    PORT: serviceEnv.PORT.default(4001),
    /** Signs the links to uploaded files (`GET /api/v1/files/{token}`); ≥ 32 characters, the same on every instance. */
    FILE_LINK_SECRET: secretEnv,
    /** During a rotation (ADR 50): the replaced `FILE_LINK_SECRET`, verifying only (mails' links live 7 days). */
    FILE_LINK_SECRET_PREVIOUS: previousSecretEnv,
    /**
     * Keys the index of submitters' addresses and signs erasure receipts (issue 31, docs/privacy.md); ≥ 32
     * characters, the same on every instance.
     */
    PRIVACY_KEY: secretEnv,
    /** During a rotation: the replaced `PRIVACY_KEY`, which still finds what it indexed and verifies its receipts. */
    PRIVACY_KEY_PREVIOUS: previousSecretEnv,
    /** The plans file (the same as billing's and the gateway's): each plan's `forms` limit. Unset: the built-in plans. */
    PLANS_FILE: z.string().min(1).optional(),
  }),
);
