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
const app = await startEmbedded(config);
// SIGTERM: readiness 503, in-flight requests drain, consumers commit; past SHUTDOWN_TIMEOUT_MS, exit 1.
onShutdownSignal({
  name: 'formgate',
  logger: createLogger({ level: config.LOG_LEVEL, name: 'formgate' }),
  timeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  delayMs: config.SHUTDOWN_DELAY_MS,
  readiness: app.readiness,
  closables: [app],
});
