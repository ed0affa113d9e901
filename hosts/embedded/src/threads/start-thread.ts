import { type Transferable, Worker } from 'node:worker_threads';
import type { Logger } from '@formgate/kit';
import type { FromThread, ToThread } from './protocol.ts';

const DEV_BOOTSTRAP = new URL('./dev-bootstrap.mjs', import.meta.url);
/** How long a health or metrics request waits for a thread's answer. */
const ASK_TIMEOUT_MS = 2_000;

/** A running thread of the embedded host, from the main thread. */
export interface RunningThread<R> {
  /** What the thread said once it ran (`ThreadRunning.ready`). */
  ready: R;
  /** Whether the thread's stores answer; false when the thread is gone or does not answer in time. */
  healthy(fresh: boolean): Promise<boolean>;
  /** The thread's metrics (`Registry.getMetricsAsJSON()`), to merge into the process's; none when it does not answer. */
  metricsJson(): Promise<unknown[]>;
  /** Asks the thread to stop (it closes what it runs), then ends it. */
  stop(): Promise<void>;
}

/**
 * Starts a thread of the embedded host (ADR 77) and resolves once it says it runs. `script` is the thread's module:
 * a `.ts` file runs through `dev-bootstrap.mjs` (tsx in the thread), a bundle's `.mjs` as it is. Of `execArgv`, only
 * `--cpu-prof*` is inherited. `onExit` is called when the thread ends without being asked to (a crash).
 */
export async function startThread<R>(opts: {
  name: string;
  script: URL;
  workerData: object;
  transferList?: Transferable[];
  logger: Logger;
  onExit(err: Error): void;
}): Promise<RunningThread<R>> {
  const fromSource = opts.script.pathname.endsWith('.ts');
  const worker = new Worker(fromSource ? DEV_BOOTSTRAP : opts.script, {
    workerData: fromSource ? { ...opts.workerData, module: opts.script.href } : opts.workerData,
    transferList: opts.transferList ?? [],
    // Only a CPU profiler's flags are passed on (each thread writes its own profile, bench/README.md).
    execArgv: process.execArgv.filter((arg) => arg.startsWith('--cpu-prof')),
  });
  // Health and metrics requests awaiting their answer. A thread that is gone, or does not answer within
  // `ASK_TIMEOUT_MS` (blocked on a disk, say), answers `undefined`: a probe or a scrape never hangs on it.
  const pending = new Map<number, (answer: FromThread | undefined) => void>();
  let nextId = 0;
  let gone = false;
  let booted = false;
  let stopping = false;
  const ask = (message: ToThread & { id: number }) => {
    if (gone) return Promise.resolve(undefined);
    const answer = new Promise<FromThread | undefined>((resolve) => {
      const timer = setTimeout(() => {
        pending.delete(message.id);
        resolve(undefined);
      }, ASK_TIMEOUT_MS);
      pending.set(message.id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
    });
    worker.postMessage(message);
    return answer;
  };
  // The error a thread died of (its uncaught exception), kept for the fatal report.
  let died: unknown;
  worker.on('error', (err) => {
    died = err;
  });
  const exited = new Promise<number>((resolve) => worker.once('exit', resolve));

  const ready = new Promise<R>((resolve, reject) => {
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') resolve(message.ready as R);
      else if (message.type === 'failed') {
        const err = Object.assign(new Error(`${opts.name} thread: ${message.message}`), { stack: message.stack });
        if (stopping) opts.logger.error({ err }, `${opts.name} thread: stopping failed`);
        reject(err);
        void worker.terminate();
      } else if (message.type === 'stopped') {
        // Everything is closed: end the thread even if a library left a timer or socket open.
        void worker.terminate();
      } else {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    });
    void exited.then((code) => {
      gone = true;
      for (const answer of pending.values()) answer(undefined);
      pending.clear();
      const err = new Error(`${opts.name} thread exited with code ${code}`, died ? { cause: died } : {});
      reject(err);
      // A boot that fails rejects `startThread` instead; a stop asked for is no crash.
      if (booted && !stopping) opts.onExit(err);
    });
  });
  const value = await ready.catch(async (err) => {
    stopping = true;
    await worker.terminate();
    throw err;
  });
  booted = true;

  return {
    ready: value,
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
      worker.postMessage({ type: 'stop' } satisfies ToThread);
      await exited;
    },
  };
}
