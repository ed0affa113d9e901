import type { BusMessage, LogPositions, Replay, ReplayOptions } from '../event-bus.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import { type Log, type Row, toMessage } from './log.ts';
import type { Wakeups } from './wakeups.ts';

export interface ReplayDeps {
  log: Log;
  wakeups: Wakeups;
  registry: SubscriptionRegistry;
  idlePollMs: number;
}

/** Where a replay of `partitions` starts (`ReplayOptions.from`), within each partition's retained records. */
function startOf(log: Log, topic: string, partitions: number, from: ReplayOptions['from'] = 'start'): number[] {
  return Array.from({ length: partitions }, (_, p) => {
    const { low, high } = log.bounds(topic, p);
    if (from === 'start') return low;
    const wanted = from === 'end' ? undefined : (from as LogPositions)[p];
    return wanted === undefined ? high : Math.min(Math.max(Number(wanted), low), high);
  });
}

/** Reads every partition of a topic from its start, synchronously up to its end, then follows it. */
export function createReplay(deps: ReplayDeps) {
  return async (topic: string, onMessage: (message: BusMessage) => void, options?: ReplayOptions): Promise<Replay> => {
    const spec = deps.log.topics.get(topic);
    if (!spec) throw new Error(`unknown topic ${topic}`);
    const controller = new AbortController();
    const positions = startOf(deps.log, topic, spec.partitions, options?.from);
    const start: LogPositions = Object.fromEntries(positions.map((o, p) => [p, String(o)]));
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
    const subscription = deps.registry.track(async () => {
      controller.abort();
      await follow;
    });
    return { stop: () => subscription.stop(), start };
  };
}
