import { EventEmitter } from 'node:events';

/** Wake-ups of the embedded log's readers: per topic (replays) and per `topic/partition` (group members). */
export interface Wakeups {
  wake(topic: string, partitions: Iterable<number>): void;
  /**
   * Waits until `channel` (a topic, or `topic/partition`) gets a new record, `ms` elapse, or `signal` aborts; with
   * no channel, only for the time.
   */
  waitFor(channel: string | null, ms: number, signal: AbortSignal): Promise<void>;
}

export function createWakeups(): Wakeups {
  const emitter = new EventEmitter().setMaxListeners(0);
  return {
    wake(topic, partitions) {
      emitter.emit(topic);
      for (const p of partitions) emitter.emit(`${topic}/${p}`);
    },
    waitFor: (channel, ms, signal) =>
      new Promise<void>((resolve) => {
        if (signal.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          if (channel) emitter.off(channel, done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        if (channel) emitter.on(channel, done);
        signal.addEventListener('abort', done);
      }),
  };
}
