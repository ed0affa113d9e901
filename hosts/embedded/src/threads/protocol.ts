/** Main thread → a thread of the embedded host (`start-thread.ts` ↔ `run-thread.ts`). */
export type ToThread =
  | { type: 'stop' }
  | { type: 'health'; id: number; fresh: boolean }
  | { type: 'metrics'; id: number };

/** A thread → the main thread. `ready` carries what the thread tells once it runs (e.g. its services' URLs). */
export type FromThread =
  | { type: 'ready'; ready: unknown }
  | { type: 'failed'; message: string; stack?: string }
  | { type: 'stopped' }
  | { type: 'health'; id: number; ok: boolean }
  | { type: 'metrics'; id: number; json: unknown[] };
