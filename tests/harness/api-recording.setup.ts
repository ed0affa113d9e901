import { afterAll } from 'vitest';
import { API_SAMPLES_DIR, flushApiRecorder, installApiRecorder } from './api-recorder.ts';

// Every int, e2e, browser and reliability test file records the API answers its `fetch` sees (vitest `setupFiles`,
// vitest.config.ts), and what Chromium (browser-api-recorder.ts) and the load generator give it; the
// `api-conformance` project checks them against the OpenAPI description after the tiers ran.
installApiRecorder(process.env.FORMGATE_API_RECORD || API_SAMPLES_DIR);

afterAll(async () => {
  // Bounded: a body still streaming when the file ends (a test that never read it) is not worth a hook timeout.
  await Promise.race([flushApiRecorder(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
});
