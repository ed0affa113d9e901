import type { ConsumerGroupSpec, TopicSpec } from '@formgate/contracts';
import type { ConsumerLag } from './lag.ts';

/** A record to append. Records with the same key go to the same partition and keep their order. */
export interface OutgoingMessage {
  key: string;
  value: string;
  headers?: Record<string, string>;
}

/** A record as a consumer sees it. `offset` is a decimal string, increasing within a partition. */
export interface BusMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string;
  value: string;
  headers: Record<string, string>;
  timestamp: number;
}

export class BusUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BusUnavailableError';
  }
}

export interface EventPublisher {
  /**
   * Appends `messages` to `topic`. Resolves only once the log has durably acknowledged every one of them (the
   * embedded log: a committed transaction with `synchronous=FULL`; Kafka: acks=-1 from the idempotent producer).
   * Rejects with `BusUnavailableError` when the log cannot take them now; the caller must then treat the messages
   * as not written (a retry may duplicate a record, never lose one). Concurrent calls are batched together.
   */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
}

/**
 * Handles one batch from one partition, in offset order. It may see a message again after a crash or a
 * rebalance (at-least-once): it must be idempotent. Throwing retries the batch according to what the error says
 * (`classifyFailure`):
 * - transient (infrastructure down: `BusUnavailableError`, a network error, MongoDB unreachable, `SQLITE_BUSY`, an
 *   error with `retryable: true`, or one caused by any of these) — retried without limit, with capped exponential
 *   backoff and jitter; the partition waits (nothing after the record is delivered) and the consumer stays in its
 *   group. Only stopping the subscription ends the wait, and then nothing is committed;
 * - permanent (`retryable: false`, a `ZodError`, a JSON `SyntaxError`) — no retry: the batch is run again one
 *   message at a time to find the bad one, which goes to `<topic>.dlq` after that one call;
 * - unknown (anything else) — `RetryPolicy.attempts` tries on the batch, then as many on each message alone, then
 *   `<topic>.dlq`.
 */
export type BatchHandler = (batch: BusMessage[]) => Promise<void>;

export interface RetryPolicy {
  /** Tries per batch, then per message, before a message failing for an unknown reason goes to `<topic>.dlq`. */
  attempts: number;
  /** First wait between tries; it doubles after each failure up to `maxDelayMs` (transient waits add jitter). */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, initialDelayMs: 100, maxDelayMs: 5_000 };

export interface SubscribeOptions {
  /** Consumer group, `<service>.<handler>`. Members of one group share the partitions; each record goes to one. */
  group: string;
  topic: string;
  handler: BatchHandler;
  /**
   * Where a group with no committed offset starts: the earliest record (default), or the log end as of the call to
   * `subscribe()` — every record appended after it resolved is delivered, however late the group join completes.
   */
  fromBeginning?: boolean;
  maxBatchSize?: number;
  /**
   * How long a fetch may wait for more records before it answers (Kafka: the broker holds it up to this long for
   * `GATHER_BYTES`; the embedded log delivers what it has). For a handler whose store cost is per batch, not per
   * record (a projection writing one batch in a few commands): under load its batches grow and its commands per
   * record fall, while a lone record waits at most this long (ADR 62). Unset: answered as soon as anything is there.
   */
  gatherMs?: number;
  retry?: RetryPolicy;
}

/** `gatherMs` for projections: a record may wait this long to share its batch's store commands (ADR 62). */
export const PROJECTION_GATHER_MS = 300;

export interface Subscription {
  /**
   * Stops fetching, waits for the batch in flight to finish and commits its offsets. A batch waiting out a
   * transient failure stops waiting at once and stays uncommitted: the group's next member gets it again.
   */
  stop(): Promise<void>;
}

export interface EventSubscriber {
  /**
   * Joins `group` and delivers every record of `topic` at least once, in order per partition. The offset of a
   * batch is committed only after its handler resolved. A record whose handler fails permanently, or for an
   * unknown reason after the retry policy, is appended to `<topic>.dlq` with the original key, value and headers
   * plus `x-error`, `x-group`, `x-partition`, `x-offset`, `x-failure` (`permanent` | `unknown`) and
   * `x-dead-lettered-at` (ISO 8601), and then committed, so one poison record never blocks its partition. A
   * transient failure never dead-letters: the partition waits until the handler succeeds (see `BatchHandler`); the
   * wait is reported through the adapter's `onError` at most every few seconds.
   *
   * Resolves once the subscription is registered, without waiting for the group join (on Kafka, a restarted
   * instance would otherwise wait out its dead predecessor's session): delivery starts when the member has its
   * partitions. Rejects with `BusUnavailableError` when the log cannot be reached.
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Reads `topic` without joining a group or committing anything and keeps following it: from its first retained
   * record by default (how services build in-memory views of compacted topics), or from `options.from` (see
   * `ReplayOptions`). Resolves once every record between the start and the log end as of the call has been passed to
   * `onMessage`, in order per partition; every record appended after it resolved is passed too. The answer names
   * where it started on each partition (`Replay.start`), so a reader can resume later without a gap.
   */
  replay(topic: string, onMessage: (message: BusMessage) => void, options?: ReplayOptions): Promise<Replay>;
}

/** Per partition, the offset of the next record to read (a decimal string, as `BusMessage.offset`). */
export type LogPositions = Readonly<Record<number, string>>;

export interface ReplayOptions {
  /**
   * Where to start: `'start'` (default) the first retained record of each partition; `'end'` the log end as of the
   * call, so only records appended later are passed (a live follower); positions, each partition at its offset (one
   * past the last record a reader saw: how it resumes) and a partition they do not name at the log end. A position
   * outside a partition's retained records is brought within them (before the first: the first; past the end: the end).
   */
  from?: 'start' | 'end' | LogPositions;
}

export interface Replay extends Subscription {
  /** Where the replay started, every partition named (after the last record it was given, a reader resumes there). */
  readonly start: LogPositions;
}

/** A record of `<topic>.dlq`, with what its headers say about the original and the failure. */
export interface DeadLetter {
  /** Its offset in `<topic>.dlq` (one partition): how it is named when replaying. */
  dlqOffset: string;
  /** Where the original record was. */
  topic: string;
  partition: number;
  offset: string;
  /** The consumer group whose handler failed, the error message (≤ 500 characters) and its class. */
  group: string;
  error: string;
  failure: 'permanent' | 'unknown';
  /** When it was dead-lettered (ms since the epoch). */
  deadLetteredAt: number;
  key: string;
  value: string;
  /** The original record's headers, without the dead-letter ones. */
  headers: Record<string, string>;
  /** Whether it has been replayed already (see `DeadLetters.replay`). */
  replayed: boolean;
}

/** Which dead letters to replay: the given `.dlq` offsets, an inclusive range of them, or every one. */
export type DeadLetterSelection = { offsets: string[] | { from: string; to: string } } | 'all';

export interface ReplayResult {
  /**
   * `.dlq` offsets replayed now, in order. Letters of one original record (one per consumer group that failed on
   * it) put that record back on the topic once, since every group reads it there.
   */
  replayed: string[];
  /** Selected but replayed before, so not appended again. */
  alreadyReplayed: string[];
  /** Offsets named in the selection that `<topic>.dlq` does not hold (never existed, or past retention). */
  notFound: string[];
}

/**
 * Operator access to a topic's dead letters (`<topic>.dlq`). Replays are recorded in `<topic>.dlq.replayed`, a
 * compacted one-partition topic keyed by `.dlq` offset, so a dead letter is appended to its topic once however many
 * times it is replayed: the record is appended first and its marker after, so a crash in between can append it a
 * second time on the next replay (at-least-once, like everything else: handlers are idempotent). Replays within
 * one bus run one at a time; two processes replaying the same dead letter at the same moment may both append it.
 * These calls read the whole `.dlq` (on Kafka through a throwaway consumer group): they are for operators, not hot
 * paths.
 */
export interface DeadLetters {
  /** Dead letters of `topic` from `.dlq` offset `from` (default: the first retained), at most `limit`, oldest first. */
  list(topic: string, options: { from?: string; limit: number }): Promise<DeadLetter[]>;
  /**
   * Appends the selected dead letters to `topic` again, in `.dlq` order, with their key, value and original headers
   * plus `x-replayed-from: <dlq offset>`, skipping those replayed before and appending the letters of one original
   * record (same `x-partition` and `x-offset`) once. Consumers see them as new records.
   */
  replay(topic: string, selection: DeadLetterSelection): Promise<ReplayResult>;
  /** Dead letters `<topic>.dlq` retains, and how many of them were not replayed yet (for health output). */
  count(topic: string): Promise<{ total: number; pending: number }>;
}

export interface EventBus extends EventPublisher, EventSubscriber {
  readonly deadLetters: DeadLetters;
  /**
   * Creates missing topics with the given partitions and cleanup policy, each with its `.dlq` (one partition) and
   * `.dlq.replayed` (one partition, compacted). Idempotent.
   */
  ensureTopics(specs: readonly TopicSpec[]): Promise<void>;
  /**
   * Resolves when the log answers a cheap metadata request (Kafka: the cluster's brokers; the embedded log: a read
   * of its database); rejects with `BusUnavailableError` otherwise. For readiness probes: callers bound and cache it.
   */
  ping(): Promise<void>;
  /**
   * How far each of `groups` is behind on every partition of its topic (committed offset against the log end), read
   * from the log itself, so it covers every member of the group in every process, running or not. A topic that does
   * not exist yields no rows. For operators (`formgate lag`): a few metadata reads per group, not a hot path.
   * Rejects with `BusUnavailableError` when the log cannot be reached.
   */
  lag(groups: readonly ConsumerGroupSpec[]): Promise<ConsumerLag[]>;
  /**
   * Erases every record whose value holds one of `holding` (an erasure's submission ids, issue 31) and not `unless`
   * (the erasure's own id: its deletion events, which hold nothing else, must still reach their consumers), in
   * every topic and dead-letter topic: its value becomes empty and its headers `ERASED_HEADER` only, so nothing of
   * it stays in the log (the embedded log also checkpoints its file), and every consumer skips it unseen. Answers
   * how many records it erased, or `null` from a log that cannot rewrite records (Kafka: they go with the topic's
   * retention, `docs/privacy.md`).
   */
  eraseRecords(match: EraseMatch): Promise<number | null>;
  /** Stops every subscription (draining), flushes pending publishes, and releases connections. */
  close(): Promise<void>;
}

/** Which records `EventBus.eraseRecords` erases. */
export interface EraseMatch {
  holding: readonly string[];
  unless?: string;
  /** No record written before this time (ms since the epoch) holds them: older ones need not be read. */
  since?: number;
}

/** The one header of an erased record (`EventBus.eraseRecords`): consumers skip such records without a call. */
export const ERASED_HEADER = 'x-erased';
