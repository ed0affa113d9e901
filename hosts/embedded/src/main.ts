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
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) process.exit(1);
    stopping = true;
    app.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
