import type { MessagePort } from 'node:worker_threads';
import { classifyFailure, type FailureClass } from '@formgate/contracts';
import type { BusMessage, EventBus, ReplayOptions, SubscribeOptions } from '../event-bus.ts';
import { BusUnavailableError } from '../event-bus.ts';

/** The request/response operations of `EventBus`, as the serving side runs them on the real bus. */
export const OPERATIONS = {
  publish: (bus: EventBus, ...[topic, messages]: Parameters<EventBus['publish']>) => bus.publish(topic, messages),
  ensureTopics: (bus: EventBus, ...[specs]: Parameters<EventBus['ensureTopics']>) => bus.ensureTopics(specs),
  ping: (bus: EventBus) => bus.ping(),
  lag: (bus: EventBus, ...[groups]: Parameters<EventBus['lag']>) => bus.lag(groups),
  eraseRecords: (bus: EventBus, ...[match]: Parameters<EventBus['eraseRecords']>) => bus.eraseRecords(match),
  listDeadLetters: (bus: EventBus, ...args: Parameters<EventBus['deadLetters']['list']>) =>
    bus.deadLetters.list(...args),
  replayDeadLetters: (bus: EventBus, ...args: Parameters<EventBus['deadLetters']['replay']>) =>
    bus.deadLetters.replay(...args),
  countDeadLetters: (bus: EventBus, ...args: Parameters<EventBus['deadLetters']['count']>) =>
    bus.deadLetters.count(...args),
};

export type Operation = keyof typeof OPERATIONS;
type Operations = typeof OPERATIONS;
export type OperationArgs<K extends Operation> = Operations[K] extends (bus: EventBus, ...args: infer A) => unknown
  ? A
  : never;
export type OperationResult<K extends Operation> = Awaited<ReturnType<Operations[K]>>;

export const isOperation = (op: unknown): op is Operation => typeof op === 'string' && Object.hasOwn(OPERATIONS, op);

/** `SubscribeOptions` without the handler, which stays on the subscribing side. */
export type RemoteSubscribeOptions = Omit<SubscribeOptions, 'handler'>;

/** What the subscribing side sends. `id` names a request answered by one `result`; `sub` a subscription or replay. */
export type Request =
  | { t: 'call'; id: number; op: Operation; args: unknown[] }
  | { t: 'subscribe'; id: number; sub: number; options: RemoteSubscribeOptions }
  | { t: 'replay'; id: number; sub: number; topic: string; from?: ReplayOptions['from'] }
  | { t: 'stop'; id: number; sub: number }
  /** The remote handler's answer to batch `n`. */
  | { t: 'done'; n: number; error?: WireError };

/** What the serving side sends. */
export type Reply =
  | { t: 'result'; id: number; value?: unknown; error?: WireError }
  /** Batch `n` of subscription `sub`, to answer with `done`. */
  | { t: 'batch'; sub: number; n: number; batch: BusMessage[] }
  /** Records of replay `sub`, in order. */
  | { t: 'records'; sub: number; records: BusMessage[] };

/**
 * What one end posts: its messages gathered until `flushAt` (each crosses the port as an array, in order), so a burst
 * of calls or answers costs one `postMessage` and one wake-up of the other thread instead of one each.
 */
export function createOutbox<T>(port: MessagePort, flushAt: (flush: () => void) => void) {
  let queue: T[] = [];
  const flush = () => {
    if (queue.length === 0) return;
    const messages = queue;
    queue = [];
    port.postMessage(messages);
  };
  return {
    post(message: T) {
      if (queue.push(message) === 1) flushAt(flush);
    },
    /** Posts `message` in a message of its own (a bounded batch of records), after what was gathered before it. */
    postAlone(message: T) {
      flush();
      port.postMessage([message]);
    },
    /** Posts what is gathered now (before the port closes). */
    flush,
  };
}

/** An error crossing the port: its message and how `classifyFailure` judged it where it was thrown. */
export interface WireError {
  message: string;
  failure: FailureClass;
  /** A `BusUnavailableError`, rebuilt as one. */
  unavailable: boolean;
}

export function toWire(err: unknown): WireError {
  return {
    message: String((err as Error | undefined)?.message ?? err),
    failure: classifyFailure(err),
    unavailable: err instanceof BusUnavailableError || (err as Error | undefined)?.name === 'BusUnavailableError',
  };
}

/**
 * An error that came across the port. Its own `retryable` says what `classifyFailure` found on the other side
 * (true: transient, false: permanent); an unknown failure has none, so it stays unknown here.
 */
export class RemoteError extends Error {
  declare retryable?: boolean;
  constructor(message: string, failure: FailureClass) {
    super(message);
    this.name = 'RemoteError';
    if (failure !== 'unknown') this.retryable = failure === 'transient';
  }
}

/** The error `toWire` described, which `classifyFailure` judges as it judged the original. */
export function fromWire(wire: WireError): Error {
  if (wire.unavailable) return new BusUnavailableError(wire.message);
  return new RemoteError(wire.message, wire.failure);
}
