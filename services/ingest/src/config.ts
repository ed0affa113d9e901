import { fileStoreEnv } from '@formgate/host-distributed/file-store';
import { defineConfig, previousSecretEnv, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';
import { captchaEnv } from './spam/captcha.ts';

const { IDENTITY_SECRET: _ingestTrustsNoIdentity, IDENTITY_SECRET_PREVIOUS: _norItsPrevious, ...shared } = serviceEnv;

export const loadIngestConfig = defineConfig(
  z.object({
    ...shared,
    ...fileStoreEnv,
    PORT: serviceEnv.PORT.default(4002),
    /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
    PUBLIC_URL: z.url(),
    /**
     * Ingest's own signing secret, the same on every ingest instance (and on no other service), 32+ characters:
     * ALTCHA challenges are signed with a key derived from it and the form, and so are the time-trap's render
     * timestamps (what one instance issued verifies on another).
     */
    INGEST_SECRET: secretEnv,
    /** During a rotation (ADR 50): the replaced `INGEST_SECRET`, verifying stamps and challenges only (24 h). */
    INGEST_SECRET_PREVIOUS: previousSecretEnv,
    /** The plans file (the same as billing's): each plan's `maxFileMb`. Unset: the built-in plans. */
    PLANS_FILE: z.string().min(1).optional(),
    ...captchaEnv,
    /**
     * The gateway's addresses (comma-separated IPs or CIDR ranges): only from these is the client address the gateway
     * passes (`x-formgate-client-ip`) believed; anyone else is taken at its socket address. Default: loopback.
     */
    TRUSTED_PROXIES: z
      .string()
      .default('127.0.0.1,::1')
      .transform((s) =>
        s
          .split(',')
          .map((p) => p.trim())
          .filter((p) => p !== ''),
      ),
  }),
);
