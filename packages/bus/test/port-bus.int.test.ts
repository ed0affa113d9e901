import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { type ConsumerGroupSpec, classifyFailure } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type BusMessage, BusUnavailableError, type EventBus } from '../src/event-bus.ts';
import { createPortBus, serveBus } from '../src/port/index.ts';
import { createSqliteBus, type SqliteBusOptions } from '../src/sqlite/index.ts';
import { runBusContract } from './bus.contract.ts';

const openBus = (opts?: SqliteBusOptions) =>
  createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-port-bus-')), 'bus.db')), opts);

/** A real SQLite bus served on one end of a channel, and the bus forwarding to it from the other. */
function openPair(opts?: SqliteBusOptions, serve: (bus: EventBus) => EventBus = (bus) => bus) {
  const served = openBus(opts);
  const { port1, port2 } = new MessageChannel();
  const server = serveBus(serve(served), port1);
  const remote = createPortBus(port2);
  return { served, server, remote, port1, port2 };
}

runBusContract({
  name: 'port (the embedded log served across a MessageChannel)',
  create: async (options) => {
    const { served, server, remote } = openPair(options);
    return {
      ...remote,
      close: async () => {
        await remote.close();
        await server.close();
        await served.close();
      },
    };
  },
  deliveryTimeoutMs: 5_000,
});

const fastRetry = { attempts: 2, initialDelayMs: 5, maxDelayMs: 20 };
const values = (batch: BusMessage[]) => batch.map((m) => m.value);

/** Subscribes to `topic` in the group of the same name; what it handles accumulates in the array returned. */
async function member(bus: EventBus, topic: string) {
  const handled: string[] = [];
  await bus.subscribe({ group: topic, topic, handler: async (b) => void handled.push(...values(b)) });
  return handled;
}

describe('port bus', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** `openPair`, closed after the test: the remote end, then the server, then the served bus. */
  async function open(topic: string, opts?: SqliteBusOptions, serve?: (bus: EventBus) => EventBus) {
    const pair = openPair(opts, serve);
    cleanups.push(async () => {
      await pair.remote.close();
      await pair.server.close();
      await pair.served.close();
    });
    await pair.served.ensureTopics([{ name: topic, partitions: 1, compacted: false }]);
    return pair;
  }

  it('retries a transient failure of the remote handler without dead-lettering it, reported as transient', async () => {
    const reported: unknown[] = [];
    const { served, remote } = await open('port.transient', { onError: (err) => reported.push(err) });
    await served.publish('port.transient', [{ key: 'k', value: 'flaky' }]);
    const handled: string[] = [];
    let failures = 0;
    await remote.subscribe({
      group: 'port.transient',
      topic: 'port.transient',
      retry: fastRetry,
      handler: async (batch) => {
        if (failures++ < 5)
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
        handled.push(...values(batch));
      },
    });
    await eventually(() => expect(handled).toEqual(['flaky']));
    expect(failures).toBe(6);
    expect(await served.deadLetters.count('port.transient')).toEqual({ total: 0, pending: 0 });
    expect(reported.map((err) => [classifyFailure(err), (err as Error).message])).toEqual([
      ['transient', 'connect ECONNREFUSED 127.0.0.1:27017'],
    ]);
  });

  it('dead-letters a permanent failure of the remote handler after one call, its message in x-error', async () => {
    const deadLettered: unknown[] = [];
    const { served, remote } = await open('port.permanent', { onDeadLetter: (err) => deadLettered.push(err) });
    await served.publish('port.permanent', [{ key: 'k', value: 'bad' }]);
    const calls: string[][] = [];
    await remote.subscribe({
      group: 'port.permanent',
      topic: 'port.permanent',
      retry: fastRetry,
      handler: async (batch) => {
        calls.push(values(batch));
        throw Object.assign(new Error('invalid payload: formId is required'), { retryable: false });
      },
    });
    await eventually(async () => expect((await served.deadLetters.count('port.permanent')).total).toBe(1));
    const [letter] = await served.deadLetters.list('port.permanent', { limit: 10 });
    expect(letter).toMatchObject({ value: 'bad', failure: 'permanent', error: 'invalid payload: formId is required' });
    expect(calls).toEqual([['bad']]);
    expect(deadLettered.map((err) => classifyFailure(err))).toEqual(['permanent']);
  });

  it('sends an unknown failure as transient while this side says its stores are down, never dead-lettering it', async () => {
    const { port1, port2 } = new MessageChannel();
    const served = openBus();
    const server = serveBus(served, port1);
    let storesUp = false;
    const remote = createPortBus(port2, { storeHealthy: async () => storesUp });
    cleanups.push(async () => {
      await remote.close();
      await server.close();
      await served.close();
    });
    await served.ensureTopics([{ name: 'port.outage', partitions: 1, compacted: false }]);
    await served.publish('port.outage', [{ key: 'k', value: 'kept' }]);
    const handled: string[] = [];
    let failures = 0;
    await remote.subscribe({
      group: 'port.outage',
      topic: 'port.outage',
      retry: fastRetry,
      handler: async (batch) => {
        // Fails for an unknown reason far more often than the retry policy's attempts, until the stores answer.
        if (!storesUp) {
          failures += 1;
          if (failures === 10) storesUp = true;
          throw new Error('SQLITE_IOERR: disk I/O error');
        }
        handled.push(...values(batch));
      },
    });
    await eventually(() => expect(handled).toEqual(['kept']));
    expect(failures).toBe(10);
    expect(await served.deadLetters.count('port.outage')).toEqual({ total: 0, pending: 0 });
  });

  it('rejects a publish with BusUnavailableError when the served bus does, other failures with their message', async () => {
    const { remote } = await open('port.overloaded', { maxPendingPublishes: 0 });
    const unavailable = remote.publish('port.overloaded', [{ key: 'k', value: 'v' }]);
    await expect(unavailable).rejects.toBeInstanceOf(BusUnavailableError);
    await expect(unavailable).rejects.toThrow('event log is overloaded');
    const missing = remote.publish('port.missing', [{ key: 'k', value: 'v' }]);
    await expect(missing).rejects.toThrow('unknown topic port.missing');
    await expect(missing).rejects.not.toBeInstanceOf(BusUnavailableError);
  });

  it('a port closed mid-batch commits nothing: the group’s next member gets the batch, nothing dead-lettered', async () => {
    const { served, remote, port2 } = await open('port.gone');
    await served.publish('port.gone', [{ key: 'k', value: 'in flight' }]);
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    await remote.subscribe({
      group: 'port.gone',
      topic: 'port.gone',
      handler: () => {
        entered();
        return new Promise<void>(() => {});
      },
    });
    await inHandler;
    port2.close();
    const next = await member(served, 'port.gone');
    await eventually(() => expect(next).toEqual(['in flight']));
    expect(await served.deadLetters.count('port.gone')).toEqual({ total: 0, pending: 0 });
    await expect(remote.ping()).rejects.toBeInstanceOf(BusUnavailableError);
  });

  it('rejects the calls pending on the remote end with BusUnavailableError when the port closes', async () => {
    const { remote, port1 } = await open('port.pending', {}, (bus) => ({ ...bus, ping: () => new Promise(() => {}) }));
    const pinging = remote.ping();
    port1.close();
    await expect(pinging).rejects.toBeInstanceOf(BusUnavailableError);
    await expect(remote.publish('port.pending', [{ key: 'k', value: 'v' }])).rejects.toBeInstanceOf(
      BusUnavailableError,
    );
  });

  it('close() on the remote end stops its subscriptions and leaves the served bus open', async () => {
    const { served, server, remote } = await open('port.close');
    const remoteSeen = await member(remote, 'port.close');
    await remote.publish('port.close', [{ key: 'k', value: 'before' }]);
    await eventually(() => expect(remoteSeen).toEqual(['before']));
    await remote.close();
    await server.close();
    await served.publish('port.close', [{ key: 'k', value: 'after' }]);
    const next = await member(served, 'port.close');
    await eventually(() => expect(next).toEqual(['after']));
    expect(remoteSeen).toEqual(['before']);
    await expect(served.ping()).resolves.toBeUndefined();
    await expect(remote.publish('port.close', [{ key: 'k', value: 'v' }])).rejects.toBeInstanceOf(BusUnavailableError);
  });

  it('the serving end’s close() drains the batch in flight, commits it and leaves the bus open', async () => {
    const { served, server, remote } = await open('port.drain');
    await served.publish('port.drain', [{ key: 'k', value: 'slow' }]);
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const handled: string[] = [];
    await remote.subscribe({
      group: 'port.drain',
      topic: 'port.drain',
      handler: async (batch) => {
        entered();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        handled.push(...values(batch));
      },
    });
    await inHandler;
    const closing = server.close();
    setTimeout(() => release(), 50);
    await closing;
    expect(handled).toEqual(['slow']);
    await expect(remote.ping()).rejects.toBeInstanceOf(BusUnavailableError);
    expect(
      await served.lag([{ group: 'port.drain', topic: 'port.drain' as ConsumerGroupSpec['topic'] }]),
    ).toMatchObject([{ lag: 0 }]);
  });

  it('rejects replay() with what onMessage threw while catching up, passing nothing after it', async () => {
    const { served, remote } = await open('port.replay-fails');
    await served.publish(
      'port.replay-fails',
      ['0', '1', '2'].map((value) => ({ key: 'k', value })),
    );
    const seen: string[] = [];
    const failure = new Error('view cannot take it');
    const replaying = remote.replay('port.replay-fails', (m) => {
      seen.push(m.value);
      if (m.value === '1') throw failure;
    });
    await expect(replaying).rejects.toBe(failure);
    expect(seen).toEqual(['0', '1']);
  });

  it('gathers the appends asked during one turn of the event loop into one message, and answers them in one', async () => {
    const { served, remote, port1, port2 } = await open('port.gather');
    const asked = vi.spyOn(port2, 'postMessage');
    const answered = vi.spyOn(port1, 'postMessage');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => remote.publish('port.gather', [{ key: 'k', value: `${i}` }])),
    );
    expect(asked.mock.calls.map(([m]) => (m as unknown[]).length)).toEqual([20]);
    // One group commit holds all twenty (one event-loop turn of the serving end): one message answers them.
    expect(answered.mock.calls.map(([m]) => (m as unknown[]).length)).toEqual([20]);
    const stored: string[] = [];
    const replay = await served.replay('port.gather', (m) => stored.push(m.value));
    expect(stored).toEqual(Array.from({ length: 20 }, (_, i) => `${i}`));
    await replay.stop();
  });

  it('sends a replay’s catch-up in bounded messages, in order, all before replay() resolves', async () => {
    const { served, remote, port1 } = await open('port.replay');
    const sent = Array.from({ length: 2_500 }, (_, i) => String(i));
    await served.publish(
      'port.replay',
      sent.map((value) => ({ key: 'k', value })),
    );
    const posted = vi.spyOn(port1, 'postMessage');
    const seen: string[] = [];
    const replay = await remote.replay('port.replay', (m) => seen.push(m.value));
    expect(seen).toEqual(sent);
    // Each message posted is an array of replies; a batch of records goes alone.
    const records = posted.mock.calls.filter(([m]) => (m as { t: string }[]).some((r) => r.t === 'records'));
    expect(records.map(([m]) => (m as { records: unknown[] }[]).map((r) => r.records.length))).toEqual([
      [1_000],
      [1_000],
      [500],
    ]);
    await replay.stop();
  });
});
