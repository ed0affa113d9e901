import { dlqTopic } from '@formgate/contracts';
import type { BatchHandler, BusMessage, EventPublisher, RetryPolicy } from './event-bus.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface DeliveryContext {
  group: string;
  policy: RetryPolicy;
  dlq: EventPublisher;
  /** Polled between attempts; when it turns true the delivery gives up and the batch stays uncommitted. */
  isStopping: () => boolean;
  onDeadLetter?: (message: BusMessage, error: unknown) => void;
}

export class DeliveryAborted extends Error {}

async function attempt(run: () => Promise<void>, ctx: DeliveryContext): Promise<unknown> {
  let delay = ctx.policy.initialDelayMs;
  let lastError: unknown;
  for (let i = 0; i < ctx.policy.attempts; i++) {
    if (i > 0) {
      if (ctx.isStopping()) throw new DeliveryAborted('stopping');
      await sleep(delay);
      delay = Math.min(delay * 2, ctx.policy.maxDelayMs);
    }
    try {
      await run();
      return undefined;
    } catch (err) {
      lastError = err;
    }
  }
  return lastError ?? new Error('handler failed');
}

/**
 * Runs `handler` on `batch` with retries. If the whole batch keeps failing, each message is retried on its own
 * and the ones that still fail are sent to the dead-letter topic. Resolves when every message is either handled
 * or dead-lettered (then the caller commits); throws `DeliveryAborted` when stopping mid-way (nothing committed).
 */
export async function deliver(batch: BusMessage[], handler: BatchHandler, ctx: DeliveryContext): Promise<void> {
  const batchError = await attempt(() => handler(batch), ctx);
  if (batchError === undefined) return;
  for (const message of batch) {
    const error = batch.length === 1 ? batchError : await attempt(() => handler([message]), ctx);
    if (error === undefined) continue;
    await ctx.dlq.publish(dlqTopic(message.topic), [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          'x-error': String((error as Error)?.message ?? error).slice(0, 500),
          'x-group': ctx.group,
          'x-partition': String(message.partition),
          'x-offset': message.offset,
        },
      },
    ]);
    ctx.onDeadLetter?.(message, error);
  }
}

/** Stable partition for a key (FNV-1a); the embedded log's partitioner. */
export function partitionFor(key: string, partitions: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % partitions;
}
