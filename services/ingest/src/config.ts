import { defineConfig, secretEnv, serviceEnv } from '@formgate/kit';
import { z } from 'zod';
import { captchaEnv } from './spam/captcha.ts';

const { IDENTITY_SECRET: _ingestTrustsNoIdentity, ...shared } = serviceEnv;

export const loadIngestConfig = defineConfig(
  z.object({
    ...shared,
    PORT: serviceEnv.PORT.default(4002),
    /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
    PUBLIC_URL: z.url(),
    /**
     * Ingest's own signing secret, the same on every ingest instance (and on no other service): ALTCHA challenges
     * are signed with a key derived from it and the form (a challenge one instance issued verifies on another).
     */
    INGEST_SECRET: secretEnv,
    ...captchaEnv,
  }),
);
