/**
 * What the bus adapters report, so `formgate_bus_*`, `formgate_consumer_lag` and `formgate_dead_letters_total` mean
 * the same on Kafka and on the embedded log (docs/metrics.md). `createMetrics().bus` (`@formgate/kit`) implements it;
 * the default records nothing.
 */
export interface BusMetrics {
  /** A publish's time until the log acknowledged (or refused) it. */
  observePublish(topic: string, seconds: number): void;
  /** Records in a batch handed to a consumer's handler. */
  observeBatch(topic: string, size: number): void;
  /** One write to the log and the records it carried: a Kafka produce request, an embedded group commit. */
  observeAppend(log: 'kafka' | 'embedded', records: number): void;
  /** Records of `topic`/`partition` appended but not yet processed by this process's member of `group`. */
  setLag(group: string, topic: string, partition: number, lag: number): void;
  /** This member no longer holds the partition (a rebalance moved it): its last lag must not linger. */
  forgetLag(group: string, topic: string, partition: number): void;
  /** One record `group` appended to `<topic>.dlq`. */
  deadLettered(group: string, topic: string): void;
}

export const NO_BUS_METRICS: BusMetrics = {
  observePublish() {},
  observeBatch() {},
  observeAppend() {},
  setLag() {},
  forgetLag() {},
  deadLettered() {},
};

/** `publish` timed into `formgate_bus_publish_duration_seconds`, resolved or rejected. */
export function timedPublish<A extends unknown[]>(
  publish: (topic: string, ...rest: A) => Promise<void>,
  metrics: BusMetrics,
): (topic: string, ...rest: A) => Promise<void> {
  if (metrics === NO_BUS_METRICS) return publish;
  return async (topic, ...rest) => {
    const started = process.hrtime.bigint();
    try {
      await publish(topic, ...rest);
    } finally {
      metrics.observePublish(topic, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
