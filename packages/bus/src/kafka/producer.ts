import type { Kafka, Message, Producer } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import { BusUnavailableError, type OutgoingMessage } from '../event-bus.ts';
import { type Connected, connected, type OnError, RETRY } from './client.ts';

/** Key+value+header bytes per produce request; the broker refuses record batches over ~1 MB per partition. */
const MAX_BATCH_BYTES = 900_000;

export interface ProducerOptions {
  lingerMs: number;
  maxBatchMessages: number;
  maxQueuedMessages: number;
  /** A publish not acknowledged by then is rejected: dropped if still queued, else perhaps written anyway. */
  publishTimeoutMs: number;
  onError: OnError;
  onSend?: (messageCount: number) => void;
  /** Rejects when the topic does not exist. */
  requireTopic: (topic: string) => Promise<void>;
}

interface Pending {
  topic: string;
  messages: Message[];
  bytes: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export interface BatchingProducer {
  /** Queues `messages` and resolves once a produce request carrying them was acknowledged. */
  publish(topic: string, messages: OutgoingMessage[]): Promise<void>;
  /** Refuses new messages, sends what is queued and disconnects. */
  close(): Promise<void>;
}

/** Takes queued publishes from the head, up to the message and byte limits of one produce request. */
function takeBatch(queue: Pending[], maxMessages: number) {
  let [take, bytes, count] = [0, 0, 0];
  for (const p of queue) {
    if (take > 0 && (count + p.messages.length > maxMessages || bytes + p.bytes > MAX_BATCH_BYTES)) break;
    take++;
    count += p.messages.length;
    bytes += p.bytes;
  }
  const batch = queue.slice(0, take);
  const byTopic = new Map<string, Message[]>();
  for (const p of batch) {
    const list = byTopic.get(p.topic);
    if (list) list.push(...p.messages);
    else byTopic.set(p.topic, [...p.messages]);
  }
  return {
    batch,
    rest: queue.slice(take),
    count,
    topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
  };
}

/**
 * Publishes batched Formgate-side (linger or size) into one `sendBatch` at a time on an idempotent producer with
 * acks=-1; the producer is recreated after a failed send.
 */
class LingeringProducer implements BatchingProducer {
  private queue: Pending[] = [];
  private waiting = 0;
  private inFlight = 0;
  private due = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> | undefined;
  private readonly producer: Connected<Producer>;

  constructor(
    kafka: Kafka,
    private readonly opts: ProducerOptions,
  ) {
    this.producer = connected<Producer>(() =>
      kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: RETRY,
      }),
    );
  }

  publish = async (topic: string, messages: OutgoingMessage[]) => {
    if (messages.length === 0) return;
    if (this.closed) throw new BusUnavailableError('event bus is closed');
    await this.opts.requireTopic(topic);
    if (this.waiting + this.inFlight + messages.length > this.opts.maxQueuedMessages) {
      throw new BusUnavailableError('publish queue is full');
    }
    let bytes = 0;
    const records = messages.map((m) => {
      bytes += m.key.length + m.value.length;
      for (const [k, v] of Object.entries(m.headers ?? {})) bytes += k.length + v.length;
      return { key: m.key, value: m.value, headers: m.headers ?? {} };
    });
    await new Promise<void>((resolve, reject) => {
      const pending: Pending = { topic, messages: records, bytes, resolve, reject };
      const timer = setTimeout(() => this.expire(pending), this.opts.publishTimeoutMs);
      pending.resolve = () => {
        clearTimeout(timer);
        resolve();
      };
      pending.reject = (err) => {
        clearTimeout(timer);
        reject(err);
      };
      this.queue.push(pending);
      this.waiting += records.length;
      this.pump();
    });
  };

  async close() {
    this.closed = true;
    this.pump();
    while (this.sending) await this.sending;
    await this.producer.reset();
  }

  /** Past its deadline: taken out of the queue if no produce request carries it yet (then it is never written). */
  private expire(p: Pending) {
    const at = this.queue.indexOf(p);
    if (at >= 0) {
      this.queue.splice(at, 1);
      this.waiting -= p.messages.length;
    }
    p.reject(new BusUnavailableError(`Kafka did not acknowledge within ${this.opts.publishTimeoutMs} ms`));
  }

  private pump() {
    if (this.queue.length === 0) return;
    if (this.waiting >= this.opts.maxBatchMessages || this.closed) this.due = true;
    if (!this.due) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.due = true;
        this.pump();
      }, this.opts.lingerMs);
      return;
    }
    if (this.sending) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due = false;
    this.sending = this.send().finally(() => {
      this.sending = undefined;
      this.pump();
    });
  }

  private async send() {
    const { batch, rest, count, topicMessages } = takeBatch(this.queue, this.opts.maxBatchMessages);
    this.queue = rest;
    this.waiting -= count;
    this.inFlight += count;
    try {
      const p = await this.producer.get();
      this.opts.onSend?.(count);
      await p.sendBatch({ acks: -1, topicMessages });
      for (const p of batch) p.resolve();
    } catch (err) {
      this.opts.onError(err, `sendBatch of ${count} messages failed; recreating the producer`);
      await this.producer.reset();
      const error = new BusUnavailableError('Kafka did not acknowledge the messages', { cause: err });
      for (const p of batch) p.reject(error);
    } finally {
      this.inFlight -= count;
    }
  }
}

export const createBatchingProducer = (kafka: Kafka, opts: ProducerOptions): BatchingProducer =>
  new LingeringProducer(kafka, opts);
