import type { TopicSpec } from '@formgate/contracts';
import { dlqReplayedTopic, dlqTopic, SUBMISSION_LOG_RETENTION_MS } from '@formgate/contracts';
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

/**
 * Whether a kafkajs error may pass with time while the broker answers: a leader election, a topic its metadata does
 * not show yet, a request that timed out. kafkajs ends its own retries with `KafkaJSNumberOfRetriesExceeded`, which
 * it marks non-retriable whatever the broker said; that is transient when the broker's answer was. A broker that
 * does not answer at all is not waited for here (callers report `BusUnavailableError` at once). A batch of per-topic
 * errors is transient when each of them is.
 */
export function isTransient(err: unknown): boolean {
  const e = err as { name?: string; type?: string; retriable?: boolean; cause?: unknown; errors?: unknown } | undefined;
  if (Array.isArray(e?.errors)) return e.errors.length > 0 && e.errors.every(isTransient);
  if (e?.name === 'KafkaJSNumberOfRetriesExceeded') {
    const cause = e.cause as { type?: string } | undefined;
    return cause?.type !== undefined && isTransient(cause);
  }
  return e?.retriable !== false;
}

/** Retries an admin call while its errors are transient, for at most `deadlineMs`. */
async function retrying<T>(call: () => Promise<T>, deadlineMs = 15_000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isTransient(err) || Date.now() > deadline) throw err;
      await sleep(200 * Math.min(attempt, 5));
    }
  }
}

const alreadyExists = (err: unknown): boolean => {
  const e = err as { type?: string; errors?: unknown } | undefined;
  return Array.isArray(e?.errors) ? e.errors.every(alreadyExists) : e?.type === 'TOPIC_ALREADY_EXISTS';
};

/** Whether every partition of `topics` has a leader; false while the broker does not know one of them yet. */
async function haveLeaders(client: Admin, topics: string[]): Promise<boolean> {
  const { topics: meta } = await client.fetchTopicMetadata({ topics });
  return meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0));
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
    // A topic holding personal data keeps its dead letters no longer than its records (docs/privacy.md).
    const dlqRetention =
      s.retentionMs === SUBMISSION_LOG_RETENTION_MS
        ? [
            { name: 'retention.ms', value: String(s.retentionMs) },
            { name: 'segment.ms', value: String(Math.floor(s.retentionMs / 6)) },
          ]
        : [];
    wanted.set(dlqTopic(s.name), {
      topic: dlqTopic(s.name),
      numPartitions: 1,
      replicationFactor,
      ...(dlqRetention.length > 0 ? { configEntries: dlqRetention } : {}),
    });
    wanted.set(dlqReplayedTopic(s.name), {
      topic: dlqReplayedTopic(s.name),
      numPartitions: 1,
      replicationFactor,
      configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
    });
  }
  return wanted;
}

/**
 * Creates what is missing and waits until every partition has a leader. kafkajs' own wait (`waitForLeaders`) is not
 * used: it gives up after 5 s, and at the first "does not host this topic-partition" of a broker whose metadata
 * lags its controller — both seen on a loaded machine while several processes create the same topics at once.
 */
async function createMissing(client: Admin, specs: readonly TopicSpec[], replicationFactor: number) {
  const wanted = wantedTopics(specs, replicationFactor);
  const names = [...wanted.keys()];
  const creating = 60_000;
  await retrying(async () => {
    const existing = new Set(await client.listTopics());
    const missing = [...wanted.values()].filter((t) => !existing.has(t.topic));
    if (missing.length === 0) return;
    // Another process may create some of them first.
    await client.createTopics({ topics: missing, timeout: 30_000 }).catch((err) => {
      if (!alreadyExists(err)) throw err;
    });
  }, creating);
  await retrying(async () => {
    if (!(await haveLeaders(client, names))) throw new Error(`topics have no leader yet: ${names.join(', ')}`);
  }, creating);
  return names;
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
