import type { Admin } from 'kafkajs';
import {
  KafkaJSAggregateError,
  KafkaJSConnectionError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
} from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { createTopics, isTransient } from '../src/kafka/admin.ts';

/** What kafkajs raises for a broker's error code (its own `createErrorFromCode` is internal). */
const protocolError = (type: string, retriable: boolean) =>
  new KafkaJSProtocolError({ message: type, type, code: 0, retriable } as unknown as Error);
const unknownTopic = () => protocolError('UNKNOWN_TOPIC_OR_PARTITION', true);
/** How kafkajs ends its own retries of a call. */
const exhausted = (cause: Error) => new KafkaJSNumberOfRetriesExceeded(cause, { retryCount: 5, retryTime: 2_000 });

/**
 * An admin whose broker is loaded: for its first `lagging` metadata requests it does not know the topics it just
 * created, then it shows them without a leader once, then with one. Like kafkajs, its `createTopics` waiting for
 * leaders gives up at the first "does not host this topic-partition".
 */
function laggingAdmin(lagging: number, createError?: unknown) {
  const created = new Set<string>();
  const calls = { create: 0, metadata: 0 };
  const admin = {
    listTopics: async () => [...created],
    createTopics: async ({ topics, waitForLeaders }: { topics: { topic: string }[]; waitForLeaders?: boolean }) => {
      calls.create++;
      if (createError) throw createError;
      for (const t of topics) created.add(t.topic);
      if (waitForLeaders) throw unknownTopic();
      return true;
    },
    fetchTopicMetadata: async ({ topics }: { topics: string[] }) => {
      calls.metadata++;
      if (calls.metadata <= lagging) throw exhausted(unknownTopic());
      const leader = calls.metadata === lagging + 1 ? -1 : 0;
      return { topics: topics.map((name) => ({ name, partitions: [{ partitionId: 0, leader }] })) };
    },
  };
  const topics = createTopics({ get: async () => admin as unknown as Admin, reset: async () => {} }, 1);
  return { topics, calls, created };
}

const spec = { name: 'submissions', partitions: 1, compacted: false } as const;

describe('Kafka topic administration on a loaded broker', () => {
  it('creates the topics and waits through metadata that lags the controller until every partition has a leader', async () => {
    const { topics, calls, created } = laggingAdmin(3);
    await topics.ensure([spec]);
    expect([...created].sort()).toEqual(['submissions', 'submissions.dlq', 'submissions.dlq.replayed']);
    expect(calls.metadata).toBe(5);
    // Known from now on: no broker round trip.
    await topics.require('submissions.dlq');
  });

  it('takes topics another process created first', async () => {
    const raced = new KafkaJSAggregateError('Topic creation errors', [protocolError('TOPIC_ALREADY_EXISTS', false)]);
    const { topics, calls } = laggingAdmin(0, raced);
    await topics.ensure([spec]);
    expect(calls.create).toBe(1);
  });

  it('fails at once on an error time does not mend, and when the broker does not answer', async () => {
    const invalid = new KafkaJSAggregateError('Topic creation errors', [protocolError('INVALID_CONFIG', false)]);
    const { topics, calls } = laggingAdmin(0, invalid);
    await expect(topics.ensure([spec])).rejects.toBe(invalid);
    expect(calls.create).toBe(1);

    const down = exhausted(new KafkaJSConnectionError('Connection error: ECONNREFUSED'));
    const unreachable = createTopics(
      { get: async () => ({ listTopics: () => Promise.reject(down) }) as unknown as Admin, reset: async () => {} },
      1,
    );
    await expect(unreachable.ensure([spec])).rejects.toBe(down);
  });

  it('retries offsets through the end of kafkajs’ own retries while the broker does not host the partition yet', async () => {
    let calls = 0;
    const admin = {
      fetchTopicOffsets: async () => {
        calls++;
        if (calls <= 2) throw exhausted(unknownTopic());
        return [{ partition: 0, offset: '7', low: '0', high: '7' }];
      },
    };
    const topics = createTopics({ get: async () => admin as unknown as Admin, reset: async () => {} }, 1);
    expect(await topics.offsets('submissions')).toEqual([{ partition: 0, offset: '7', low: '0', high: '7' }]);
    expect(calls).toBe(3);
  });
});

describe('isTransient', () => {
  it('tells an answer that may change with time from a final one', () => {
    expect(isTransient(unknownTopic())).toBe(true);
    expect(isTransient(exhausted(protocolError('LEADER_NOT_AVAILABLE', true)))).toBe(true);
    expect(
      isTransient(new KafkaJSAggregateError('x', [unknownTopic(), protocolError('TOPIC_ALREADY_EXISTS', false)])),
    ).toBe(false);
    expect(isTransient(exhausted(protocolError('TOPIC_AUTHORIZATION_FAILED', false)))).toBe(false);
    expect(isTransient(exhausted(new KafkaJSConnectionError('ECONNREFUSED')))).toBe(false);
    expect(isTransient(protocolError('INVALID_CONFIG', false))).toBe(false);
  });
});
