import type { Batch, KafkaMessage } from 'kafkajs';
import type { BusMessage } from '../event-bus.ts';

/** A fetched record as the port's `BusMessage`, named by its logical `topic` (the batch's, without the namespace). */
export const toBusMessage = (batch: Batch, m: KafkaMessage, topic: string): BusMessage => {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (last !== undefined) headers[k] = last.toString();
  }
  return {
    topic,
    partition: batch.partition,
    offset: m.offset,
    key: m.key?.toString() ?? '',
    value: m.value?.toString() ?? '',
    headers,
    timestamp: Number(m.timestamp),
  };
};
