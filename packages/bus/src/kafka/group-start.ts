import type { Kafka } from 'kafkajs';
import type { OnError } from './client.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** How long a commit retries a coordinator that is moving or still loading (a fresh broker's first group). */
const COORDINATOR_DEADLINE_MS = 15_000;
const COORDINATOR_MOVING = new Set([
  'NOT_COORDINATOR_FOR_GROUP',
  'NOT_COORDINATOR',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'GROUP_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
]);
/** What the coordinator answers a member-less commit while the group has members. */
const GROUP_HAS_MEMBERS = new Set(['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION', 'REBALANCE_IN_PROGRESS']);

/** The part of kafkajs' internal cluster and broker this module uses (kafkajs 2.2.4, the last release). */
interface Coordinator {
  leaveGroup(request: { groupId: string; memberId: string }): Promise<unknown>;
  offsetCommit(request: {
    groupId: string;
    groupGenerationId: number;
    memberId: string;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<unknown>;
}
export interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(request: { groupId: string }): Promise<Coordinator>;
}

/**
 * kafkajs' cluster for its own clients, made by the `Kafka` instance's private factory: kafkajs has no public call
 * for a member-less commit (its `admin.setOffsets` joins the group with a hidden consumer and waits for a fetch).
 */
export function clusterOf(kafka: Kafka): Cluster {
  const factory = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const create = factory && (kafka as unknown as Record<symbol, unknown>)[factory];
  if (typeof create !== 'function') throw new Error('kafkajs has no cluster factory (only 2.2.x is supported)');
  return create({}) as Cluster;
}

export type CommittedOffsets = (groupId: string, topic: string) => Promise<Map<number, bigint>>;

export interface GroupStart {
  /**
   * Makes `ends` (per partition the group has no offset for) the group's start — committed for the group, so every
   * member that is later handed one of those partitions starts there. Returns the partitions it could not commit
   * (the group already had members), whose start stays the calling instance's.
   */
  pin(groupId: string, topic: string, ends: Map<number, bigint>): Promise<Map<number, bigint>>;
  close(): Promise<void>;
}

/**
 * A new group's start, committed for the group as Kafka's `Admin.alterConsumerGroupOffsets` does: an OffsetCommit
 * with generation −1 and no member id, which the coordinator accepts only while the group has no member. Two
 * instances of a brand-new group that pin at the same instant converge on the earlier start (the later one rewrites
 * a later start it reads back); see docs/architecture.md "Recovery bounds".
 */
export function createGroupStart(kafka: Kafka, committed: CommittedOffsets, onError: OnError): GroupStart {
  let cluster: Promise<Cluster> | undefined;
  const connect = () => {
    cluster ??= (async () => {
      const c = clusterOf(kafka);
      try {
        await c.connect();
        return c;
      } catch (err) {
        cluster = undefined;
        throw err;
      }
    })();
    return cluster;
  };

  /** Commits `offsets` for a member-less group; false if the group has members. */
  async function commitIfEmpty(groupId: string, topic: string, offsets: Map<number, bigint>): Promise<boolean> {
    const partitions = [...offsets].map(([partition, offset]) => ({ partition, offset: String(offset) }));
    const deadline = Date.now() + COORDINATOR_DEADLINE_MS;
    for (;;) {
      try {
        const coordinator = await (await connect()).findGroupCoordinator({ groupId });
        await coordinator.offsetCommit({
          groupId,
          groupGenerationId: -1,
          memberId: '',
          topics: [{ topic, partitions }],
        });
        return true;
      } catch (err) {
        const type = (err as { type?: string }).type ?? '';
        if (GROUP_HAS_MEMBERS.has(type)) return false;
        if (!COORDINATOR_MOVING.has(type) || Date.now() > deadline) throw err;
        await sleep(250);
      }
    }
  }

  return {
    async pin(groupId, topic, ends) {
      if (ends.size === 0) return ends;
      try {
        const pinned = await commitIfEmpty(groupId, topic, ends);
        const now = await committed(groupId, topic);
        if (!pinned) return new Map([...ends].filter(([p]) => (now.get(p) ?? -1n) < 0n));
        // Another new instance may have committed a later start after ours: the earlier one wins. Either way every
        // partition has the group's offset now.
        const later = new Map([...ends].filter(([p, offset]) => (now.get(p) ?? -1n) > offset));
        if (later.size > 0) await commitIfEmpty(groupId, topic, later);
        return new Map();
      } catch (err) {
        onError(err, `cannot commit the start of group ${groupId} on ${topic}; this instance keeps its own`);
        return ends;
      }
    },
    async close() {
      const c = cluster;
      cluster = undefined;
      await c?.then((x) => x.disconnect()).catch(() => {});
    },
  };
}
