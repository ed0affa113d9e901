import { MessageChannel, Worker } from 'node:worker_threads';
import type { EventBus } from '@formgate/bus';
import { serveBus } from '@formgate/bus/port';
import type { Logger } from '@formgate/kit';
import type { FromServices, ServicesThreadData, ThreadService, ToServices } from './protocol.ts';

/**
 * The services thread's script. From source, a bootstrap that registers tsx in the thread (it runs TypeScript
 * whatever started this process: tsx, vitest or node); the production bundle names its own (`embedded-services.mjs`).
 */
export const SOURCE_SERVICES_WORKER = new URL('./services-worker.dev.mjs', import.meta.url);

export interface ServicesThread {
  /** Where each service's app answers (loopback), for the gateway's targets. */
  urls: Record<ThreadService, string>;
  /** Whether every SQLite file of the thread answers (`StoreHealth.healthy`); false when the thread is gone. */
  healthy(fresh: boolean): Promise<boolean>;
  /** The thread's metrics as `Registry.getMetricsAsJSON()` answers them, to merge into the process's. */
  metricsJson(): Promise<unknown[]>;
  /** Stops the services (their consumers commit), closes their files, then the thread exits. */
  stop(): Promise<void>;
}

/**
 * Starts the services thread and resolves once its services have started (their views replayed) and their apps
 * listen. The main thread's event log is served to it over a `MessageChannel` (`serveBus`): the log keeps one
 * writer, and the consumer loops, offsets and dead letters stay where they are. `onExit` is called when the thread
 * ends without being asked to (a crash): the process can no longer project or notify, and should stop.
 */
export async function startServicesThread(opts: {
  script: URL;
  data: Omit<ServicesThreadData, 'busPort'>;
  bus: EventBus;
  logger: Logger;
  onExit(err: Error): void;
}): Promise<ServicesThread> {
  const channel = new MessageChannel();
  const served = serveBus(opts.bus, channel.port1);
  const data: ServicesThreadData = { ...opts.data, busPort: channel.port2 };
  // No inherited flags: the bootstrap (or the bundle) sets up what the thread needs.
  const worker = new Worker(opts.script, { workerData: data, transferList: [channel.port2], execArgv: [] });
  // Health and metrics requests awaiting their answer; a thread that is gone answers `undefined`.
  const pending = new Map<number, (answer: FromServices | undefined) => void>();
  let nextId = 0;
  let stopping = false;
  const ask = (message: ToServices & { id: number }) => {
    const answer = new Promise<FromServices | undefined>((resolve) => pending.set(message.id, resolve));
    worker.postMessage(message);
    return answer;
  };

  const ready = new Promise<Record<ThreadService, string>>((resolve, reject) => {
    worker.on('message', (message: FromServices) => {
      if (message.type === 'ready') resolve(message.urls);
      else if (message.type === 'failed') {
        const err = Object.assign(new Error(`services thread: ${message.message}`), { stack: message.stack });
        if (stopping) opts.logger.error({ err }, 'services thread: stopping failed');
        reject(err);
      } else if (message.type === 'stopped') {
        // Everything is closed: end the thread even if a library left a timer or socket open.
        void worker.terminate();
      } else {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      const err = new Error(`services thread exited with code ${code}`);
      for (const answer of pending.values()) answer(undefined);
      pending.clear();
      void served.close();
      reject(err);
      if (!stopping) opts.onExit(err);
    });
  });
  const urls = await ready.catch(async (err) => {
    stopping = true;
    await worker.terminate();
    throw err;
  });

  return {
    urls,
    async healthy(fresh) {
      const answer = await ask({ type: 'health', id: nextId++, fresh });
      return answer?.type === 'health' && answer.ok;
    },
    async metricsJson() {
      const answer = await ask({ type: 'metrics', id: nextId++ });
      return answer?.type === 'metrics' ? answer.json : [];
    },
    async stop() {
      stopping = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ type: 'stop' } satisfies ToServices);
      await exited;
      await served.close();
    },
  };
}
