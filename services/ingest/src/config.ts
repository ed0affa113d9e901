import { defineConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

const { IDENTITY_SECRET: _ingestTrustsNoIdentity, ...shared } = serviceEnv;

export const loadIngestConfig = defineConfig(
  z.object({
    ...shared,
    PORT: serviceEnv.PORT.default(4002),
    /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
    PUBLIC_URL: z.url(),
    /**
     * Keys the hashes of client addresses in the rate-limit counts the instances exchange (`ingest.abuse`): the same
     * on every instance, 32+ characters. Unset: per-IP limits are counted per instance (form and organization
     * limits are shared anyway).
     */
    ABUSE_HASH_KEY: z.string().min(32).optional(),
  }),
);
