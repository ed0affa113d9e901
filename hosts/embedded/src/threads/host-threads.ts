import { MessageChannel } from 'node:worker_threads';
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

export interface HostThreads {
  log: RunningThread<null>;
  /** Ready says where each service's app answers (loopback). */
  services: RunningThread<Record<ThreadService, string>>;
  /** The main thread's end of the log (`createPortBus`). */
  bus: EventBus;
}

/**
 * The log thread and the services thread (ADR 77), started together: the services thread loads its modules while the
 * log opens, and its first calls to the log wait in its port until the log serves it. Resolves once both run (the
 * services' views replayed, their apps listening); if one fails, the other is stopped before the failure is thrown.
 */
export async function startHostThreads(opts: {
  config: EmbeddedConfig;
  scripts: ThreadScripts;
  services: Omit<ServicesThreadData, 'config' | 'busPort'>;
  logger: Logger;
  onExit(err: Error): void;
  /** Whether the main thread's stores answer: its consumers' failures are judged against them (ADR 68). */
  storeHealthy: PortBusOptions['storeHealthy'];
}): Promise<HostThreads> {
  const main = new MessageChannel();
  const services = new MessageChannel();
  const logData: LogThreadData = { config: opts.config, mainPort: main.port2, servicesPort: services.port2 };
  const servicesData: ServicesThreadData = { ...opts.services, config: opts.config, busPort: services.port1 };
  const started = await Promise.allSettled([
    startThread<null>({
      name: 'log',
      script: opts.scripts.log,
      workerData: logData,
      transferList: [main.port2, services.port2],
      logger: opts.logger,
      onExit: opts.onExit,
    }),
    startThread<Record<ThreadService, string>>({
      name: 'services',
      script: opts.scripts.services,
      workerData: servicesData,
      transferList: [services.port1],
      logger: opts.logger,
      onExit: opts.onExit,
    }),
  ]);
  const [log, svc] = started;
  if (log.status === 'rejected' || svc.status === 'rejected') {
    // The services first: they stop their consumers through the log.
    if (svc.status === 'fulfilled') await svc.value.stop();
    if (log.status === 'fulfilled') await log.value.stop();
    main.port1.close();
    throw log.status === 'rejected' ? log.reason : (svc as PromiseRejectedResult).reason;
  }
  return {
    log: log.value,
    services: svc.value,
    bus: createPortBus(main.port1, { storeHealthy: opts.storeHealthy }),
  };
}
