import type { BusMessage, EventBus, OutgoingMessage } from './event-bus.ts';

/** What `traced` needs of the process's tracing (`Tracing` from `@formgate/kit` fits). */
export interface BusTracing {
  producer(
    system: string,
    topic: string,
    messages: OutgoingMessage[],
    send: (traced: OutgoingMessage[]) => Promise<void>,
  ): Promise<void>;
  consumer(
    system: string,
    group: string,
    topic: string,
    batch: BusMessage[],
    handle: () => Promise<void>,
  ): Promise<void>;
}

/**
 * `bus` with a PRODUCER span around every publish (its `traceparent` goes into each message's `headers`, which both
 * adapters keep) and a CONSUMER span around every handler call (ADR 51). Composition roots wrap the bus only when
 * tracing is on, so an untraced process pays nothing. `system`: `kafka`, or `formgate-log` for the embedded log.
 * Replays (in-memory views) are not traced.
 */
export function traced(bus: EventBus, tracing: BusTracing, system: string): EventBus {
  return {
    get deadLetters() {
      return bus.deadLetters;
    },
    publish: (topic, messages) => tracing.producer(system, topic, messages, (out) => bus.publish(topic, out)),
    subscribe: (options) =>
      bus.subscribe({
        ...options,
        handler: (batch) => tracing.consumer(system, options.group, options.topic, batch, () => options.handler(batch)),
      }),
    replay: (topic, onMessage, options) => bus.replay(topic, onMessage, options),
    ensureTopics: (specs) => bus.ensureTopics(specs),
    ping: () => bus.ping(),
    lag: (groups) => bus.lag(groups),
    eraseRecords: (match) => bus.eraseRecords(match),
    close: () => bus.close(),
  };
}
