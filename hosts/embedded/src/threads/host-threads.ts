import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { EventBus } from '@formgate/bus';
import { createPortBus, type PortBusOptions } from '@formgate/bus/port';
import type { Logger } from '@formgate/kit';
import type { EmbeddedConfig } from '../config.ts';
import type { LogThreadData } from './log-worker.ts';
import type { ServicesThreadData, ThreadService } from './services-worker.ts';
import { type RunningThread, startThread } from './start-thread.ts';

/** Each thread's module: from source by default; the production bundle names its own entry points (`main.ts`). */
export interface ThreadScripts {
  log: URL;
  services: URL;
}

export const SOURCE_THREAD_SCRIPTS: ThreadScripts = {
  log: new URL('./log-worker.ts', import.meta.url),
  services: new URL('./services-worker.ts', import.meta.url),
};

/**
 * The log thread (ADR 77), and the bus the main thread uses: its end of the log's port. `servicesPort` is the end
 * the services thread gets (`startServicesThread`).
 */
export async function startLogThread(opts: {
  config: EmbeddedConfig;
  script: URL;
  logger: Logger;
  onExit(err: Error): void;
  /** Whether the main thread's stores answer: its consumers' failures are judged against them (ADR 68). */
  storeHealthy: PortBusOptions['storeHealthy'];
}): Promise<{ thread: RunningThread<null>; bus: EventBus; servicesPort: MessagePort }> {
  const main = new MessageChannel();
  const services = new MessageChannel();
  const workerData: LogThreadData = { config: opts.config, mainPort: main.port2, servicesPort: services.port2 };
  const thread = await startThread<null>({
    name: 'log',
    script: opts.script,
    workerData,
    transferList: [main.port2, services.port2],
    logger: opts.logger,
    onExit: opts.onExit,
  });
  return { thread, bus: createPortBus(main.port1, { storeHealthy: opts.storeHealthy }), servicesPort: services.port1 };
}

/** The services thread (ADR 77): resolves once its services started (views replayed) and their apps listen. */
export function startServicesThread(opts: {
  data: ServicesThreadData;
  script: URL;
  logger: Logger;
  onExit(err: Error): void;
}): Promise<RunningThread<Record<ThreadService, string>>> {
  return startThread({
    name: 'services',
    script: opts.script,
    workerData: opts.data,
    transferList: [opts.data.busPort],
    logger: opts.logger,
    onExit: opts.onExit,
  });
}
