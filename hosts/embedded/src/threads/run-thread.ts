import { parentPort } from 'node:worker_threads';
import type { FromThread, ToThread } from './protocol.ts';

/** What a thread's `boot` resolves with: what it tells the main thread, and how it is asked about and stopped. */
export interface ThreadRunning {
  ready: unknown;
  /** Whether the thread's stores answer (`StoreHealth.healthy`). */
  healthy(fresh: boolean): Promise<boolean>;
  /** Its metrics, as `Registry.getMetricsAsJSON()` answers them. */
  metricsJson(): Promise<unknown[]>;
  /** Stops what it runs and closes its files; the thread ends after. */
  stop(): Promise<void>;
}

/**
 * The thread side of `startThread`: boots, says `ready` (or `failed`), then answers health and metrics requests and
 * stops when asked, saying `stopped` once everything is closed.
 */
export function runThread(boot: () => Promise<ThreadRunning>): void {
  const control = parentPort;
  if (!control) throw new Error('this module runs as a worker thread of the embedded host');
  const send = (message: FromThread) => control.postMessage(message);
  const failed = (err: unknown) => {
    const e = err as Error;
    send({ type: 'failed', message: e.message, stack: e.stack });
  };
  let running: ThreadRunning | undefined;
  control.on('message', (message: ToThread) => {
    if (message.type === 'health') {
      void (running?.healthy(message.fresh) ?? Promise.resolve(false)).then(
        (ok) => send({ type: 'health', id: message.id, ok }),
        () => send({ type: 'health', id: message.id, ok: false }),
      );
    } else if (message.type === 'metrics') {
      void (running?.metricsJson() ?? Promise.resolve([])).then(
        (json) => send({ type: 'metrics', id: message.id, json }),
        () => send({ type: 'metrics', id: message.id, json: [] }),
      );
    } else {
      void (running?.stop() ?? Promise.resolve()).then(() => send({ type: 'stopped' }), failed);
    }
  });
  boot().then((r) => {
    running = r;
    send({ type: 'ready', ready: r.ready });
  }, failed);
}
