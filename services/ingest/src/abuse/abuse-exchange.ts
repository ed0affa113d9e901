import type { EventBus, Subscription } from '@formgate/bus';
import {
  type BlockedCount,
  decodeEvent,
  encodeEvent,
  type SpamLayer,
  type TopicEvent,
  Topics,
} from '@formgate/contracts';
import type { Clock, Ids, Logger } from '@formgate/kit';
import { minuteOf, type RateCount, type SlidingWindowCounter } from '../spam/rate-limit.ts';

/** Every report of an instance: at most this many entries per list, so one record stays far below Kafka's 1 MB. */
const MAX_ENTRIES = 2_000;

/** What the exchange reads of and writes to the ALTCHA replay memory (`spam/used-solutions.ts`). */
export interface SharedSolutions {
  drainClaimed(): { hash: string; expiresAt: Date }[];
  remember(hash: string, expiresAt: Date): void;
}

export interface AbuseExchangeDeps {
  bus: Pick<EventBus, 'publish' | 'replay'>;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** This process in reports: unique per process (a restarted instance follows its predecessor's reports too). */
  instance: string;
  /** The rate-limit counters: this instance's counts are drained from it, the others' added to it. */
  counter: SlidingWindowCounter;
  solutions?: SharedSolutions;
  /**
   * Distributed mode: publish rate counts and ALTCHA proofs and follow the other instances' reports. Embedded mode
   * (one instance): publish only the blocked counts (forms reads them) and follow nothing.
   */
  follow: boolean;
  /** How often a report is published when there is news (default 1 s): the tolerance of the shared limits. */
  intervalMs?: number;
}

export interface AbuseExchange {
  /** Counts one request a spam layer blocked (nothing stored), for the form's blocked count. Never throws. */
  countBlocked(form: { id: string; orgId: string }, layer: SpamLayer, rule: string): void;
  /** Starts following the other instances (distributed mode; resolves once the retained reports were read). */
  start(): Promise<void>;
  /** Publishes what is pending now; the timer calls it every interval. Resolves once published (or kept to retry). */
  flush(): Promise<void>;
  /** Stops the timer and following, and publishes what is pending one last time. */
  stop(): Promise<void>;
}

type AbuseReport = TopicEvent<typeof Topics.ingestAbuse>;
type ReportData = AbuseReport['data'];

const chunk = <T>(items: T[], i: number) => items.slice(i * MAX_ENTRIES, (i + 1) * MAX_ENTRIES);

/**
 * The abuse exchange between ingest instances (issue 14), on `ingest.abuse` (one partition, keyed by instance):
 * about once a second, when it has news, each instance publishes its rate-limit counts since its last report (IP
 * keys are keyed hashes), the ALTCHA proofs it accepted, and the requests it blocked per form and minute. Each
 * instance follows the topic without a consumer group (`bus.replay`: the topic's short retention bounds what is
 * read at start) and adds the other instances' counts to its limiter and their proofs to its replay memory, skipping
 * its own reports; counts for minutes that no longer weigh are dropped. A limit therefore holds across instances up
 * to what the others accepted in the last interval and the delivery time (docs/ingest.md, "Rate limits").
 *
 * A report that could not be published is published again, with the same id, before anything newer: forms, which
 * counts the blocked requests, deduplicates on it.
 */
export function createAbuseExchange(deps: AbuseExchangeDeps): AbuseExchange {
  const intervalMs = deps.intervalMs ?? 1_000;
  /** `${formId}\0${layer}\0${rule}\0${minute}` → count. */
  let blocked = new Map<string, BlockedCount>();
  /** Reports built but not acknowledged by the log yet, oldest first. */
  const unsent: AbuseReport[] = [];
  let timer: NodeJS.Timeout | undefined;
  let following: Subscription | undefined;
  let flushing: Promise<void> | undefined;

  const build = (): AbuseReport[] => {
    // Embedded mode: nobody else limits, so the rate counts and proofs have no reader (the proofs are still drained).
    const rate = deps.follow ? deps.counter.drain() : [];
    const altcha = deps.solutions?.drainClaimed() ?? [];
    const blocks = [...blocked.values()];
    blocked = new Map();
    const data: Omit<ReportData, 'instance'> = {
      rate: deps.follow
        ? rate.map((c) => ({ scope: c.scope, key: c.key, minute: new Date(c.minute).toISOString(), count: c.count }))
        : [],
      altchaUsed: deps.follow ? altcha.map((a) => ({ hash: a.hash, expiresAt: a.expiresAt.toISOString() })) : [],
      blocked: blocks,
    };
    const parts = Math.ceil(Math.max(data.rate.length, data.altchaUsed.length, data.blocked.length) / MAX_ENTRIES);
    const occurredAt = deps.clock.now().toISOString();
    return Array.from({ length: parts }, (_, i) => ({
      id: deps.ids.next(),
      type: 'abuse.report' as const,
      version: 1 as const,
      occurredAt,
      data: {
        instance: deps.instance,
        rate: chunk(data.rate, i),
        altchaUsed: chunk(data.altchaUsed, i),
        blocked: chunk(data.blocked, i),
      },
    }));
  };

  const publish = async () => {
    unsent.push(...build());
    if (unsent.length === 0) return;
    const batch = unsent.slice(0, 50);
    try {
      await deps.bus.publish(
        Topics.ingestAbuse,
        batch.map((r) => ({ key: deps.instance, value: encodeEvent(Topics.ingestAbuse, r) })),
      );
      unsent.splice(0, batch.length);
    } catch (err) {
      // Kept (same ids) and published again next interval; rate counts that no longer weigh are dropped by readers.
      if (unsent.length > 600) unsent.splice(0, unsent.length - 600);
      deps.logger.warn({ err, pending: unsent.length }, 'abuse report not published; retrying');
    }
  };

  const flush = () => {
    flushing ??= publish().finally(() => {
      flushing = undefined;
    });
    return flushing;
  };

  const apply = (raw: string) => {
    const report = decodeEvent(Topics.ingestAbuse, raw);
    if (report.data.instance === deps.instance) return;
    const now = deps.clock.now().getTime();
    for (const r of report.data.rate) {
      const count: RateCount = { scope: r.scope, key: r.key, minute: minuteOf(Date.parse(r.minute)), count: r.count };
      deps.counter.addRemote(count, now);
    }
    if (deps.solutions) {
      for (const a of report.data.altchaUsed) {
        const expiresAt = new Date(a.expiresAt);
        if (expiresAt.getTime() > now) deps.solutions.remember(a.hash, expiresAt);
      }
    }
  };

  return {
    countBlocked(form, layer, rule) {
      const minute = new Date(minuteOf(deps.clock.now().getTime())).toISOString();
      const id = `${form.id}\0${layer}\0${rule}\0${minute}`;
      const b = blocked.get(id);
      if (b) b.count += 1;
      else if (blocked.size < 100_000)
        blocked.set(id, { formId: form.id, orgId: form.orgId, layer, rule, minute, count: 1 });
    },
    async start() {
      if (deps.follow) {
        following = await deps.bus.replay(Topics.ingestAbuse, (m) => {
          try {
            apply(m.value);
          } catch (err) {
            deps.logger.warn({ err, offset: m.offset }, 'unreadable abuse report skipped');
          }
        });
      }
      timer = setInterval(() => void flush(), intervalMs);
      timer.unref();
    },
    flush,
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await following?.stop();
      following = undefined;
      await flush();
    },
  };
}
