import { createLogger, onShutdownSignal } from '@formgate/kit';
import { loadEmbeddedConfig } from './config.ts';
import { startEmbedded } from './start-embedded.ts';

let config: ReturnType<typeof loadEmbeddedConfig>;
try {
  config = loadEmbeddedConfig();
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
// The production bundle ships the threads' entry points beside this file; from source they run through tsx (ADR 77).
const bundled = import.meta.url.endsWith('.mjs');
const app = await startEmbedded(config, {
  ...(bundled
    ? {
        threadScripts: {
          log: new URL('./embedded-log.mjs', import.meta.url),
          services: new URL('./embedded-services.mjs', import.meta.url),
        },
      }
    : {}),
  // Without its log or services thread the process would take submissions it can no longer keep or deliver.
  onFatal: () => process.exit(1),
});
// SIGTERM: readiness 503, in-flight requests drain, consumers commit; past SHUTDOWN_TIMEOUT_MS, exit 1.
onShutdownSignal({
  name: 'formgate',
  logger: createLogger({ level: config.LOG_LEVEL, name: 'formgate' }),
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  delayMs: config.SHUTDOWN_DELAY_MS,
  readiness: app.readiness,
  closables: [app],
});
