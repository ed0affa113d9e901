import { defineConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

const { IDENTITY_SECRET: _ingestTrustsNoIdentity, ...shared } = serviceEnv;

export const loadIngestConfig = defineConfig(
  z.object({
    ...shared,
    PORT: serviceEnv.PORT.default(4002),
    /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
    PUBLIC_URL: z.url(),
  }),
);
