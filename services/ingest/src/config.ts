import { parseConfig, serviceEnv } from '@formgate/kit';
import { z } from 'zod';

export function loadIngestConfig(env: Record<string, string | undefined> = process.env) {
  const { IDENTITY_SECRET: _ingestTrustsNoIdentity, ...shared } = serviceEnv;
  return parseConfig(
    z.object({
      ...shared,
      PORT: serviceEnv.PORT.default(4002),
      /** Public base URL of the endpoint (for the default thank-you page), e.g. https://forms.example.com */
      PUBLIC_URL: z.url(),
    }),
    env,
  );
}
