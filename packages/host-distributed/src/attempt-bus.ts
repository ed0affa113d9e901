import type { EventBus, Subscription } from '@formgate/bus';

/**
 * `bus` for one boot attempt: the subscriptions and replays opened through it are kept, so that `stopOpened()` stops
 * what a failed attempt left running (a consumer group joined before a replay failed, say). The bus itself — its
 * producer and admin client, which reconnect by themselves — is shared by every attempt and closed on shutdown.
 */
export function attemptBus(bus: EventBus): { bus: EventBus; stopOpened(): Promise<void> } {
  const opened: Subscription[] = [];
  const keep = async <S extends Subscription>(subscription: Promise<S>): Promise<S> => {
    const s = await subscription;
    opened.push(s);
    return s;
  };
  return {
    bus: {
      get deadLetters() {
        return bus.deadLetters;
      },
      publish: (topic, messages) => bus.publish(topic, messages),
      subscribe: (options) => keep(bus.subscribe(options)),
      replay: (topic, onMessage, options) => keep(bus.replay(topic, onMessage, options)),
      ensureTopics: (specs) => bus.ensureTopics(specs),
      ping: () => bus.ping(),
      lag: (groups) => bus.lag(groups),
      eraseRecords: (match) => bus.eraseRecords(match),
      close: () => bus.close(),
    },
    async stopOpened() {
      // A subscription already stopped by its service's `stop()` resolves its `stop()` again at once.
      await Promise.all(opened.splice(0).map((s) => s.stop()));
    },
  };
}
