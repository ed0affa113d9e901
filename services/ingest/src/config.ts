import { defineConfig, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

const { IDENTITY_SECRET: _ingestTrustsNoIdentity, ...shared } = serviceEnv;

export const loadIngestConfig = defineConfig(
  z.object({
    ...shared,
    PORT: serviceEnv.PORT.default(4002),
    /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
    PUBLIC_URL: z.url(),
    /** Signs ingest's tokens (the time-trap's render timestamps): the same on every ingest instance, 32+ characters. */
    INGEST_SECRET: secretEnv,
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
