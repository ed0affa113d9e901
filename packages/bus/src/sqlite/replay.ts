import type { BusMessage, Subscription } from '../event-bus.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import { type Log, type Row, toMessage } from './log.ts';
import type { Wakeups } from './wakeups.ts';

export interface ReplayDeps {
  log: Log;
  wakeups: Wakeups;
  registry: SubscriptionRegistry;
  idlePollMs: number;
}

/** Reads every partition of a topic from its first record, synchronously up to its end, then follows it. */
export function createReplay(deps: ReplayDeps) {
  return async (topic: string, onMessage: (message: BusMessage) => void): Promise<Subscription> => {
    const spec = deps.log.topics.get(topic);
    if (!spec) throw new Error(`unknown topic ${topic}`);
    const controller = new AbortController();
    const positions = Array.from({ length: spec.partitions }, () => 0);
    const catchUp = () => {
      for (let p = 0; p < spec.partitions; p++) {
        for (;;) {
          const rows = deps.log.fetch(topic, p, positions[p] ?? 0, 1_000);
          if (rows.length === 0) break;
          for (const r of rows) onMessage(toMessage(topic, r));
          positions[p] = (rows.at(-1) as Row).offset + 1;
        }
      }
    };
    catchUp();
    const follow = (async () => {
      while (!controller.signal.aborted) {
        await deps.wakeups.waitFor(topic, deps.idlePollMs, controller.signal);
        if (!controller.signal.aborted) catchUp();
      }
    })();
    return deps.registry.track(async () => {
      controller.abort();
      await follow;
    });
  };
}
