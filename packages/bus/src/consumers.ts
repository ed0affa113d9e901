import type { TopicSpec } from '@formgate/contracts';
import type { EventBus, SubscribeOptions, Subscription } from './event-bus.ts';

/**
 * A service's consumer groups: `start()` creates the topics, then subscribes each in the order given (a service
 * lists what it must have caught up on first); `stop()` stops them in reverse order, draining each.
 */
export function createConsumers(bus: EventBus, topics: readonly TopicSpec[], consumers: SubscribeOptions[]) {
  const running: Subscription[] = [];
  return {
    async start() {
      await bus.ensureTopics(topics);
      for (const options of consumers) running.push(await bus.subscribe(options));
    },
    async stop() {
      for (const subscription of running.splice(0).reverse()) await subscription.stop();
    },
  };
}
