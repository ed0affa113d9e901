import type { MessagePort } from 'node:worker_threads';
import {
  type BatchHandler,
  type BusMessage,
  BusUnavailableError,
  type EventBus,
  type LogPositions,
  type Replay,
  type ReplayOptions,
  type SubscribeOptions,
  type Subscription,
} from '../event-bus.ts';
import {
  createOutbox,
  fromWire,
  type Operation,
  type OperationArgs,
  type OperationResult,
  RemoteError,
  type Reply,
  type Request,
  toWire,
  type WireError,
} from './protocol.ts';

interface Call {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  settled: Promise<unknown>;
}

/** A subscription or replay of this end, served on the other. */
interface Remote {
  handler?: BatchHandler;
  onMessage?: (message: BusMessage) => void;
  /** What `onMessage` threw while catching up: `replay()` rejects with it. */
  failed?: { error: unknown };
  /** Resolved once a replay caught up: later records are followed, not caught up with. */
  caughtUp?: boolean;
  stopping?: Promise<void>;
}

type Outgoing = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

const portClosed = () => new BusUnavailableError('the bus port closed');

/** The forwarding end of a bus port: requests to the serving end, and the handlers the batches it sends run in. */
class PortClient {
  private readonly calls = new Map<number, Call>();
  private readonly remotes = new Map<number, Remote>();
  private nextId = 0;
  private closed = false;
  /** A port listening for messages starts referenced. */
  private referenced = true;
  private closing: Promise<void> | undefined;
  /**
   * Requests gathered for one turn of the event loop: everything asked while its I/O was handled (the appends of
   * every request read meanwhile) crosses in one message, after it.
   */
  private readonly outbox: ReturnType<typeof createOutbox<Request>>;

  constructor(
    private readonly port: MessagePort,
    private readonly storeHealthy?: PortBusOptions['storeHealthy'],
  ) {
    this.outbox = createOutbox<Request>(port, (flush) => setImmediate(flush));
    port.on('message', this.receiveAll);
    port.once('close', () => this.detach());
    this.hold();
  }

  call<K extends Operation>(op: K, args: OperationArgs<K>) {
    return this.request({ t: 'call', op, args }) as Promise<OperationResult<K>>;
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const { handler, ...rest } = options;
    const { stop } = await this.open({ handler }, (sub) => ({ t: 'subscribe', sub, options: rest }));
    return { stop };
  }

  async replay(topic: string, onMessage: (message: BusMessage) => void, options?: ReplayOptions): Promise<Replay> {
    const remote: Remote = { onMessage };
    const { stop, value } = await this.open(remote, (sub) => ({ t: 'replay', sub, topic, from: options?.from }));
    remote.caughtUp = true;
    if (remote.failed === undefined) return { stop, start: value as LogPositions };
    await stop();
    throw remote.failed.error;
  }

  close() {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown() {
    await this.settleCalls();
    await Promise.allSettled([...this.remotes.keys()].map((sub) => this.stop(sub)));
    // Handlers that were draining may have published.
    await this.settleCalls();
    this.outbox.flush();
    this.port.close();
    this.detach();
  }

  private async settleCalls() {
    while (this.calls.size > 0) await Promise.allSettled([...this.calls.values()].map((c) => c.settled));
  }

  /** Opens a subscription or replay on the serving end; `value`: what its answer carried (a replay's start). */
  private async open(remote: Remote, request: (sub: number) => Outgoing): Promise<Subscription & { value: unknown }> {
    const sub = this.nextId++;
    this.remotes.set(sub, remote);
    let value: unknown;
    try {
      value = await this.request(request(sub));
    } catch (err) {
      this.remotes.delete(sub);
      this.hold();
      throw err;
    }
    return { stop: () => this.stop(sub), value };
  }

  private stop(sub: number): Promise<void> {
    const remote = this.remotes.get(sub);
    if (remote === undefined) return Promise.resolve();
    remote.stopping ??= this.request({ t: 'stop', sub }).then(
      () => this.forget(sub),
      (err) => {
        this.forget(sub);
        // The port closed: the serving end stopped the subscription itself.
        if (!this.closed) throw err;
      },
    );
    return remote.stopping;
  }

  private forget(sub: number) {
    this.remotes.delete(sub);
    this.hold();
  }

  private request(message: Outgoing): Promise<unknown> {
    if (this.closed) return Promise.reject(portClosed());
    const id = this.nextId++;
    let callbacks!: Omit<Call, 'settled'>;
    const settled = new Promise<unknown>((resolve, reject) => {
      callbacks = { resolve, reject };
    });
    this.calls.set(id, { ...callbacks, settled });
    this.hold();
    this.outbox.post({ ...message, id } as Request);
    return settled;
  }

  private readonly receiveAll = (replies: Reply[]) => {
    for (const reply of replies) this.receive(reply);
  };

  private receive(reply: Reply) {
    if (reply.t === 'result') return this.settle(reply);
    const remote = this.remotes.get(reply.sub);
    if (reply.t === 'batch') return void this.handle(remote?.handler, reply.n, reply.batch);
    if (reply.t === 'records' && remote?.onMessage) this.deliver(remote, reply.records);
  }

  private settle({ id, value, error }: { id: number; value?: unknown; error?: WireError }) {
    const call = this.calls.get(id);
    this.calls.delete(id);
    this.hold();
    if (error) call?.reject(fromWire(error));
    else call?.resolve(value);
  }

  private async handle(handler: BatchHandler | undefined, n: number, batch: BusMessage[]) {
    let error: WireError | undefined;
    try {
      if (!handler) throw new RemoteError('no handler for this batch: its subscription stopped', 'transient');
      await handler(batch);
    } catch (err) {
      error = toWire(err);
      // The stores are this side's: a failure of unknown cause while one does not answer is an outage, not a poison
      // record (ADR 68), judged here with a fresh round trip as the serving side would.
      if (error.failure === 'unknown' && this.storeHealthy) {
        const healthy = await this.storeHealthy({ fresh: true }).catch(() => false);
        if (!healthy) error = { ...error, failure: 'transient' };
      }
    }
    if (!this.closed) this.outbox.post((error ? { t: 'done', n, error } : { t: 'done', n }) satisfies Request);
  }

  private deliver(remote: Remote, records: BusMessage[]) {
    if (remote.caughtUp) {
      for (const record of records) remote.onMessage?.(record);
      return;
    }
    try {
      for (const record of records) remote.onMessage?.(record);
    } catch (error) {
      remote.failed = { error };
      remote.onMessage = undefined;
    }
  }

  /** Referenced while a call waits or a subscription lives (as a real bus's consumers are), so a worker can exit. */
  private hold() {
    const busy = !this.closed && this.calls.size + this.remotes.size > 0;
    if (busy === this.referenced) return;
    this.referenced = busy;
    if (busy) this.port.ref();
    else this.port.unref();
  }

  private detach() {
    if (this.closed) return;
    this.closed = true;
    this.port.off('message', this.receiveAll);
    for (const call of this.calls.values()) call.reject(portClosed());
    this.calls.clear();
    this.remotes.clear();
  }
}

export interface PortBusOptions {
  /**
   * Whether the stores this side's handlers write answer (`StoreHealth.healthy`): a handler failure of unknown cause
   * while they do not is sent as transient, so the serving side retries it without dead-lettering (ADR 68). Set it
   * when the serving side's bus has no `storeHealthy` of its own for these stores.
   */
  storeHealthy?: (options?: { fresh?: boolean }) => Promise<boolean>;
}

/**
 * An `EventBus` that forwards every call to the `serveBus` at the other end of `port` (see `index.ts` for what it
 * keeps of the contract). `close()` stops this end's subscriptions and closes the port, not the served bus.
 */
export function createPortBus(port: MessagePort, options: PortBusOptions = {}): EventBus {
  const client = new PortClient(port, options.storeHealthy);
  const call = <K extends Operation>(op: K, ...args: OperationArgs<K>) => client.call(op, args);
  return {
    publish: (topic, messages) => call('publish', topic, messages),
    ensureTopics: (specs) => call('ensureTopics', specs),
    ping: () => call('ping'),
    lag: (groups) => call('lag', groups),
    eraseRecords: (match) => call('eraseRecords', match),
    deadLetters: {
      list: (topic, options) => call('listDeadLetters', topic, options),
      replay: (topic, selection) => call('replayDeadLetters', topic, selection),
      count: (topic) => call('countDeadLetters', topic),
    },
    subscribe: (options) => client.subscribe(options),
    replay: (topic, onMessage, options) => client.replay(topic, onMessage, options),
    close: () => client.close(),
  };
}
