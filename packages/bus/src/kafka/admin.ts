import type { TopicSpec } from '@formgate/contracts';
import { dlqReplayedTopic, dlqTopic } from '@formgate/contracts';
import type { Admin, ITopicConfig } from 'kafkajs';
import { BusUnavailableError } from '../event-bus.ts';
import type { Connected } from './client.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Topic administration and the cache of topics known to exist. */
export interface Topics {
  /** Resolves if `topic` exists (listing the broker's topics once per miss), else rejects. */
  require(topic: string): Promise<void>;
  ensure(specs: readonly TopicSpec[]): Promise<void>;
  /** Low and high watermark per partition, retried through leader elections and stale metadata. */
  offsets(topic: string): Promise<{ partition: number; low: string; high: string }[]>;
  /** The high watermark of each partition of `topic` that `groupId` has committed no offset for. */
  uncommittedEnds(groupId: string, topic: string): Promise<Map<number, bigint>>;
  /** The offsets `groupId` has committed on `topic`, per partition (−1: none). */
  committed(groupId: string, topic: string): Promise<Map<number, bigint>>;
}

/** Retries a metadata call through leader elections and stale metadata (a few seconds at most). */
async function retrying<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (attempt >= 15 || (err as { retriable?: boolean }).retriable === false) throw err;
      await sleep(200 * Math.min(attempt, 5));
    }
  }
}

/** Topics created by another process may still be electing leaders: wait until every partition has one. */
async function waitForLeaders(client: Admin, topics: string[]) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const { topics: meta } = await client.fetchTopicMetadata({ topics });
      if (meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))) return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
    if (Date.now() > deadline) throw new Error(`topics have no leader after 60 s: ${topics.join(', ')}`);
    await sleep(200);
  }
}

function wantedTopics(specs: readonly TopicSpec[], replicationFactor: number): Map<string, ITopicConfig> {
  const wanted = new Map<string, ITopicConfig>();
  for (const s of specs) {
    const configEntries = s.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [];
    if (s.retentionMs !== undefined && !s.compacted) {
      // Kafka deletes whole segments only: roll them often enough for the retention to bite.
      const segmentMs = Math.max(60_000, Math.floor(s.retentionMs / 6));
      configEntries.push(
        { name: 'retention.ms', value: String(s.retentionMs) },
        { name: 'segment.ms', value: String(segmentMs) },
      );
    }
    wanted.set(s.name, { topic: s.name, numPartitions: s.partitions, replicationFactor, configEntries });
    wanted.set(dlqTopic(s.name), { topic: dlqTopic(s.name), numPartitions: 1, replicationFactor });
    wanted.set(dlqReplayedTopic(s.name), {
      topic: dlqReplayedTopic(s.name),
      numPartitions: 1,
      replicationFactor,
      configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
    });
  }
  return wanted;
}

async function createMissing(client: Admin, specs: readonly TopicSpec[], replicationFactor: number) {
  const existing = new Set(await client.listTopics());
  const wanted = wantedTopics(specs, replicationFactor);
  const missing = [...wanted.values()].filter((t) => !existing.has(t.topic));
  if (missing.length > 0) {
    try {
      await client.createTopics({ topics: missing, waitForLeaders: true });
    } catch (err) {
      // Another process created some of them first; waiting for leaders below covers both cases.
      if (!JSON.stringify((err as { errors?: unknown }).errors ?? err).includes('TOPIC_ALREADY_EXISTS')) throw err;
    }
  }
  await waitForLeaders(client, [...wanted.keys()]);
  return [...wanted.keys()];
}

async function committedOffsets(client: Admin, groupId: string, topic: string) {
  const [committed] = await retrying(() => client.fetchOffsets({ groupId, topics: [topic] }));
  return new Map((committed?.partitions ?? []).map((p) => [p.partition, BigInt(p.offset)]));
}

async function uncommittedEnds(client: Admin, groupId: string, topic: string) {
  try {
    const committed = await committedOffsets(client, groupId, topic);
    const unset = new Set([...committed].filter(([, offset]) => offset < 0n).map(([p]) => p));
    const ends = (await retrying(() => client.fetchTopicOffsets(topic))).filter((o) => unset.has(o.partition));
    return new Map(ends.map((o) => [o.partition, BigInt(o.high)]));
  } catch (err) {
    throw new BusUnavailableError(`cannot read the offsets of ${groupId} on ${topic}`, { cause: err });
  }
}

export function createTopics(admin: Connected<Admin>, replicationFactor: number): Topics {
  const known = new Set<string>();
  let refreshing: Promise<void> | undefined;
  const refresh = () => {
    refreshing ??= (async () => {
      try {
        for (const t of await (await admin.get()).listTopics()) known.add(t);
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  };

  return {
    async require(topic) {
      if (known.has(topic)) return;
      try {
        await refresh();
      } catch (err) {
        throw new BusUnavailableError('cannot list Kafka topics', { cause: err });
      }
      if (!known.has(topic)) throw new Error(`unknown topic ${topic}`);
    },
    async ensure(specs) {
      for (const name of await createMissing(await admin.get(), specs, replicationFactor)) known.add(name);
    },
    offsets: async (topic) => {
      const client = await admin.get();
      return retrying(() => client.fetchTopicOffsets(topic));
    },
    uncommittedEnds: async (groupId, topic) => uncommittedEnds(await admin.get(), groupId, topic),
    committed: async (groupId, topic) => committedOffsets(await admin.get(), groupId, topic),
  };
}
