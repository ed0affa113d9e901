import { DeliveryAborted, type DeliveryContext, type DeliveryHooks, deliver, reportThrough } from '../delivery.ts';
import { DEFAULT_RETRY, type EventPublisher, type SubscribeOptions, type Subscription } from '../event-bus.ts';
import type { BusMetrics } from '../metrics.ts';
import type { SubscriptionRegistry } from '../subscriptions.ts';
import { type Log, type Row, toMessage } from './log.ts';
import type { Wakeups } from './wakeups.ts';

export interface ConsumerDeps extends Pick<DeliveryHooks, 'onDeadLetter' | 'storeHealthy'> {
  log: Log;
  wakeups: Wakeups;
  dlq: EventPublisher;
  registry: SubscriptionRegistry;
  onError: (err: unknown, context: string) => void;
  /** How often an idle consumer re-reads its partition even without a wake-up. */
  idlePollMs: number;
  /** How long a consumer that has caught up waits before its next fetch. */
  lingerMs: number;
  metrics: BusMetrics;
}

/** One subscription of a group: a delivery loop per assigned partition, restarted on every rebalance. */
class GroupMember {
  private controller = new AbortController();
  private loops: Promise<void>[] = [];
  constructor(
    readonly options: SubscribeOptions,
    private readonly deps: ConsumerDeps,
  ) {}

  start(partitions: number[]) {
    this.controller = new AbortController();
    this.loops = partitions.map((p) => this.run(p, this.controller.signal));
  }

  async halt() {
    this.controller.abort();
    await Promise.all(this.loops);
    this.loops = [];
  }

  private startOffset(partition: number): number {
    const { group, topic, fromBeginning = true } = this.options;
    const { log } = this.deps;
    const committed = log.committed(group, topic, partition);
    if (committed !== undefined) return committed;
    if (fromBeginning) return log.firstOffset(topic, partition);
    // Committed now, so a member that takes the partition over later starts here too, not at a later end.
    const end = log.nextOffset(topic, partition);
    log.commit(group, topic, partition, end);
    return end;
  }

  private context(signal: AbortSignal): DeliveryContext {
    const { group, topic } = this.options;
    return {
      group,
      policy: this.options.retry ?? DEFAULT_RETRY,
      dlq: this.deps.dlq,
      signal,
      ...reportThrough(this.deps, group, topic, this.deps.metrics),
    };
  }

  private async run(partition: number, signal: AbortSignal) {
    const { group, topic, handler } = this.options;
    const { log, wakeups, idlePollMs, lingerMs, metrics } = this.deps;
    const ctx = this.context(signal);
    const maxBatch = this.options.maxBatchSize ?? 500;
    const channel = `${topic}/${partition}`;
    let offset = this.startOffset(partition);
    // Lag: the log's head (kept in memory) − this member's position, after every fetch and commit.
    const reportLag = () =>
      metrics.setLag(group, topic, partition, Math.max(0, log.nextOffset(topic, partition) - offset));
    while (!signal.aborted) {
      const rows = log.fetch(topic, partition, offset, maxBatch);
      reportLag();
      if (rows.length === 0) {
        await wakeups.waitFor(channel, idlePollMs, signal);
        continue;
      }
      metrics.observeBatch(topic, rows.length);
      try {
        await deliver(
          rows.map((r) => toMessage(topic, r)),
          handler,
          ctx,
        );
      } catch (err) {
        if (err instanceof DeliveryAborted) return;
        this.deps.onError(err, `consumer ${group} on ${channel}`);
        await wakeups.waitFor(channel, idlePollMs, signal);
        continue;
      }
      offset = (rows.at(-1) as Row).offset + 1;
      log.commit(group, topic, partition, offset);
      reportLag();
      // Caught up: let the next records accumulate into one batch instead of taking them a tick at a time.
      if (rows.length < maxBatch && lingerMs > 0) await wakeups.waitFor(null, lingerMs, signal);
    }
  }
}

/** Consumer groups of this process: each group's partitions split among its members like Kafka's range assignor. */
export function createGroups(deps: ConsumerDeps) {
  const groups = new Map<string, GroupMember[]>();

  const rebalance = async (group: string) => {
    const members = groups.get(group) ?? [];
    await Promise.all(members.map((m) => m.halt()));
    members.forEach((member, index) => {
      const partitions = deps.log.topics.get(member.options.topic)?.partitions ?? 0;
      const mine = Array.from({ length: partitions }, (_, p) => p).filter((p) => p % members.length === index);
      member.start(mine);
    });
  };

  return async function subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (!deps.log.topics.has(options.topic)) throw new Error(`unknown topic ${options.topic}`);
    const { maxBatchSize } = options;
    if (maxBatchSize !== undefined && !(Number.isSafeInteger(maxBatchSize) && maxBatchSize > 0)) {
      throw new Error(`maxBatchSize must be a positive integer, not ${maxBatchSize}`);
    }
    const member = new GroupMember(options, deps);
    groups.set(options.group, [...(groups.get(options.group) ?? []), member]);
    await rebalance(options.group);
    return deps.registry.track(async () => {
      await member.halt();
      groups.set(
        options.group,
        (groups.get(options.group) ?? []).filter((m) => m !== member),
      );
      await rebalance(options.group);
    });
  };
}
