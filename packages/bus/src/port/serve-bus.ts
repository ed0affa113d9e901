import type { MessagePort } from 'node:worker_threads';
import {
  type BusMessage,
  BusUnavailableError,
  type EventBus,
  type LogPositions,
  type ReplayOptions,
  type Subscription,
} from '../event-bus.ts';
import {
  createOutbox,
  fromWire,
  isOperation,
  OPERATIONS,
  RemoteError,
  type Reply,
  type Request,
  toWire,
} from './protocol.ts';

export interface ServeBusOptions {
  /** A message that is not part of the protocol, or a remote subscription that failed to stop. Default: ignored. */
  onError?: (err: unknown, context: string) => void;
}

export interface ServedBus {
  /**
   * Stops every subscription and replay opened for the other side (draining: a batch in flight is still answered
   * and committed), waits for the requests being answered, then stops listening and closes the port; the other
   * side's calls reject with `BusUnavailableError` from then on. The served bus stays open: its host owns it.
   */
  close(): Promise<void>;
}

/** Records of a replay sent in one message at most: a long catch-up goes as several, each a bounded copy. */
const RECORDS_PER_MESSAGE = 1_000;

type Operate = (bus: EventBus, ...args: unknown[]) => Promise<unknown>;

const portClosed = () => new RemoteError('the bus port closed before the batch was handled', 'transient');

/** The serving end of a bus port: runs what the other end asks on the real bus. */
class PortServer {
  private readonly subs = new Map<number, Subscription>();
  private readonly batches = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private readonly answering = new Set<Promise<void>>();
  private nextBatch = 0;
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** Settles once the port closed (whichever end closed it) and the remote subscriptions stopped. */
  readonly ended: Promise<void>;
  /** Answers gathered until the current microtasks ran: a group commit's appends are answered in one message. */
  private readonly outbox: ReturnType<typeof createOutbox<Reply>>;

  constructor(
    private readonly bus: EventBus,
    private readonly port: MessagePort,
    private readonly onError: NonNullable<ServeBusOptions['onError']>,
  ) {
    this.outbox = createOutbox<Reply>(port, queueMicrotask);
    port.on('message', this.receiveAll);
    // The host's own handles (its server, the bus's consumers) keep the thread alive, not this port.
    port.unref();
    this.ended = new Promise((resolve) => port.once('close', () => resolve(this.detach())));
  }

  async close() {
    if (this.state === 'open') {
      this.state = 'closing';
      await this.stopAll();
      while (this.answering.size > 0) await Promise.allSettled([...this.answering]);
      this.outbox.flush();
      this.port.close();
    }
    await this.ended;
  }

  private readonly receiveAll = (requests: unknown) => {
    if (!Array.isArray(requests)) return this.onError(new Error('not a bus port request'), 'serving a bus port');
    for (const request of requests as Request[]) this.receive(request);
  };

  private receive(message: Request) {
    switch (message?.t) {
      case 'done':
        return this.settleBatch(message);
      case 'call':
        return this.respond(message.id, () => this.operate(message.op, message.args));
      case 'subscribe':
        return this.respond(message.id, () =>
          this.open(message.sub, this.bus.subscribe({ ...message.options, handler: this.forward(message.sub) })),
        );
      case 'replay':
        return this.respond(message.id, () => this.replay(message.sub, message.topic, message.from));
      case 'stop':
        return this.respond(message.id, () => this.subs.get(message.sub)?.stop(), true);
      default:
        this.onError(new Error('not a bus port request'), 'serving a bus port');
    }
  }

  private respond(id: number, run: () => Promise<unknown> | undefined, whileClosing = false) {
    const answer = (async () => {
      try {
        if (this.state === 'closed' || (this.state === 'closing' && !whileClosing)) {
          throw new BusUnavailableError('the bus port is closing');
        }
        this.send({ t: 'result', id, value: await run() });
      } catch (err) {
        this.send({ t: 'result', id, error: toWire(err) });
      }
    })();
    this.answering.add(answer);
    void answer.finally(() => this.answering.delete(answer));
  }

  private operate(op: unknown, args: unknown[]) {
    if (!isOperation(op)) throw new Error(`not a bus operation: ${String(op)}`);
    return (OPERATIONS[op] as Operate)(this.bus, ...args);
  }

  /** The handler of remote subscription `sub`: the batch crosses in one message and settles with its `done`. */
  private forward(sub: number) {
    return (batch: BusMessage[]) =>
      new Promise<void>((resolve, reject) => {
        if (this.state === 'closed') return reject(portClosed());
        const n = this.nextBatch++;
        this.batches.set(n, { resolve, reject });
        this.send({ t: 'batch', sub, n, batch }, true);
      });
  }

  private settleBatch({ n, error }: { n: number; error?: Parameters<typeof fromWire>[0] }) {
    const batch = this.batches.get(n);
    this.batches.delete(n);
    if (error) batch?.reject(fromWire(error));
    else batch?.resolve();
  }

  /** Answers with where the replay started (`Replay.start`). */
  private async replay(sub: number, topic: string, from: ReplayOptions['from']): Promise<LogPositions> {
    let records: BusMessage[] = [];
    const flush = () => {
      if (records.length === 0) return;
      this.send({ t: 'records', sub, records }, true);
      records = [];
    };
    const replaying = this.bus.replay(
      topic,
      (record) => {
        const buffered = records.push(record);
        if (buffered === 1) queueMicrotask(flush);
        else if (buffered >= RECORDS_PER_MESSAGE) flush();
      },
      { from },
    );
    await this.open(sub, replaying);
    // Before the answer, on the same port: the other end has every record that existed once replay() resolves.
    flush();
    return (await replaying).start;
  }

  /** Registers a subscription or replay opened for the other end, or stops it if the port closed meanwhile. */
  private async open(sub: number, opening: Promise<Subscription>) {
    const real = await opening;
    if (this.state !== 'open') {
      await real.stop();
      throw new BusUnavailableError('the bus port is closing');
    }
    let stopping: Promise<void> | undefined;
    this.subs.set(sub, {
      stop: () => {
        stopping ??= real.stop().finally(() => this.subs.delete(sub));
        return stopping;
      },
    });
  }

  private async stopAll() {
    const results = await Promise.allSettled([...this.subs.values()].map((s) => s.stop()));
    for (const r of results) if (r.status === 'rejected') this.onError(r.reason, 'stopping a remote subscription');
  }

  /**
   * The other end is gone: its subscriptions stop, and the batches it was handling fail as transient, so the real
   * bus neither commits nor dead-letters them (the group's next member gets them again).
   */
  private detach() {
    this.state = 'closed';
    this.port.off('message', this.receiveAll);
    const stopped = this.stopAll();
    for (const batch of this.batches.values()) batch.reject(portClosed());
    this.batches.clear();
    return stopped;
  }

  /** `alone`: records, which cross in messages of their own (each a bounded copy), not gathered with answers. */
  private send(reply: Reply, alone = false) {
    if (this.state === 'closed') return;
    if (alone) this.outbox.postAlone(reply);
    else this.outbox.post(reply);
  }
}

/**
 * Serves `bus` to the other end of `port`, where `createPortBus(port)` forwards an `EventBus` to it. The port is
 * this protocol's alone, and unreferenced: it does not keep the thread alive.
 */
export function serveBus(bus: EventBus, port: MessagePort, options: ServeBusOptions = {}): ServedBus {
  const server = new PortServer(bus, port, options.onError ?? (() => {}));
  return { close: () => server.close() };
}
