import type { Subscription } from './event-bus.ts';

/** The live subscriptions of one bus, so `close()` can stop them all. */
export interface SubscriptionRegistry {
  /** Wraps `stop` into a subscription whose `stop()` runs it once and then forgets the subscription. */
  track(stop: () => Promise<void>): Subscription;
  stopAll(): Promise<void>;
}

export function createSubscriptionRegistry(): SubscriptionRegistry {
  const live = new Set<Subscription>();
  return {
    track(stop) {
      let stopping: Promise<void> | undefined;
      const sub: Subscription = {
        stop: () => {
          stopping ??= stop().finally(() => live.delete(sub));
          return stopping;
        },
      };
      live.add(sub);
      return sub;
    },
    async stopAll() {
      await Promise.all([...live].map((s) => s.stop()));
    },
  };
}
