import type { ConsumerGroupSpec } from '@formgate/contracts';

/** How far one consumer group is behind on one partition. Offsets are decimal strings, like `BusMessage.offset`. */
export interface ConsumerLag {
  group: string;
  topic: string;
  partition: number;
  /** The group's committed offset (the next record it will read); `null` when it has committed none yet. */
  committed: string | null;
  /** The partition's next offset (Kafka's high watermark). */
  end: string;
  /**
   * Records appended and not yet processed by the group: `end` − `committed`, or − the first retained offset when the
   * group has committed nothing (every group but those started with `fromBeginning: false` reads from there). Never
   * negative; a committed offset below the first retained one counts from the first retained one.
   */
  lag: number;
}

/** What an adapter reads to measure lag. */
export interface LagSource {
  /** Every partition of `topic` with its first retained and next offset; empty when the topic does not exist. */
  offsets(topic: string): Promise<{ partition: number; low: bigint; high: bigint }[]>;
  /** The offsets `group` committed on `topic`, per partition; partitions without one absent (or negative). */
  committed(group: string, topic: string): Promise<Map<number, bigint>>;
}

/** The lag of each group on each partition of its topic, in the order given, partitions ascending. */
export async function measureLag(groups: readonly ConsumerGroupSpec[], source: LagSource): Promise<ConsumerLag[]> {
  const topics = new Map<string, ReturnType<LagSource['offsets']>>();
  const rows = await Promise.all(
    groups.map(async ({ group, topic }) => {
      let offsets = topics.get(topic);
      if (!offsets) {
        offsets = source.offsets(topic);
        topics.set(topic, offsets);
      }
      const partitions = await offsets;
      // A topic that does not exist has no offsets to ask for (Kafka would retry the request for seconds).
      if (partitions.length === 0) return [];
      const committed = await source.committed(group, topic);
      return [...partitions]
        .sort((a, b) => a.partition - b.partition)
        .map(({ partition, low, high }): ConsumerLag => {
          const at = committed.get(partition);
          const known = at !== undefined && at >= 0n ? at : null;
          const from = known === null || known < low ? low : known;
          return {
            group,
            topic,
            partition,
            committed: known === null ? null : String(known),
            end: String(high),
            lag: high > from ? Number(high - from) : 0,
          };
        });
    }),
  );
  return rows.flat();
}

/**
 * Resolves true once every group in `groups` has read what its partitions held when it was called (it may lag
 * behind what was appended since); false when `timeoutMs` went by first. A group that never committed on a partition
 * has read nothing of it: it is behind only when the partition held something. For sweeps that must not judge data
 * a consumer has not handled yet: the erasure sweep, the stray-file sweep.
 */
export async function groupsCaughtUp(
  bus: { lag(groups: readonly ConsumerGroupSpec[]): Promise<ConsumerLag[]> },
  groups: readonly ConsumerGroupSpec[],
  options: { timeoutMs: number; pollMs: number },
): Promise<boolean> {
  const key = (l: ConsumerLag) => `${l.group}\u0000${l.topic}\u0000${l.partition}`;
  const targets = new Map((await bus.lag(groups)).map((l) => [key(l), BigInt(l.end)]));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const behind = (await bus.lag(groups)).some((l) => {
      const target = targets.get(key(l)) ?? 0n;
      return l.committed === null ? target > 0n && l.lag > 0 : BigInt(l.committed) < target;
    });
    if (!behind) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
