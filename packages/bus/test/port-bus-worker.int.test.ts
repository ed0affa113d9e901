import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { ConsumerGroupSpec } from '@formgate/contracts';
import { eventually } from '@formgate/kit/testing';
import { openSqlite } from '@formgate/store/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import type { BusMessage, EventBus } from '../src/event-bus.ts';
import { serveBus } from '../src/port/index.ts';
import { createSqliteBus } from '../src/sqlite/index.ts';
import type { WorkerScenario } from './fixtures/port-bus-worker.ts';

const WORKER = new URL('./fixtures/port-bus-worker.mjs', import.meta.url);

/** The served bus's topic, and a worker running `scenario` against it across a MessageChannel. */
function startWorker(bus: EventBus, scenario: Omit<WorkerScenario, 'port'>) {
  const { port1, port2 } = new MessageChannel();
  const server = serveBus(bus, port1);
  const worker = new Worker(WORKER, {
    workerData: { ...scenario, port: port2 },
    transferList: [port2],
    // The test runner's flags are not the worker's business; tsx is registered by the entry itself.
    execArgv: [],
  });
  const messages: unknown[] = [];
  worker.on('message', (m) => messages.push(m));
  const exited = once(worker, 'exit').then(([code]) => code as number);
  return { server, worker, exited, messages };
}

/** The worker's exit code, or `'still running'` (and then it is terminated) if it has not exited within `ms`. */
async function exitWithin(worker: Worker, exited: Promise<number>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  const outcome = await Promise.race([exited, late]);
  clearTimeout(timer);
  await worker.terminate();
  return outcome;
}

const values = (batch: BusMessage[]) => batch.map((m) => m.value);

// A worker loads tsx and compiles the bus's sources: seconds on a loaded 2-core machine.
describe('port bus in a worker thread', { timeout: 60_000 }, () => {
  let bus: EventBus;
  afterEach(async () => {
    await bus.close();
  });

  const openBus = async (topic: string) => {
    bus = createSqliteBus(openSqlite(join(mkdtempSync(join(tmpdir(), 'fg-port-worker-')), 'bus.db')));
    await bus.ensureTopics([
      { name: topic, partitions: 2, compacted: false },
      { name: `${topic}.echo`, partitions: 1, compacted: false },
    ]);
  };

  it('handles, publishes from its handler and commits; stopped, the worker exits without closing the bus', async () => {
    const topic = 'worker.echo';
    await openBus(topic);
    await bus.publish(
      topic,
      ['a', 'b', 'c'].map((value) => ({ key: value, value })),
    );
    const { server, worker, exited, messages } = startWorker(bus, {
      scenario: 'echo',
      topic,
      group: 'worker.echo',
      expected: 3,
    });
    // Exits by itself once its subscription stopped (its port no longer referenced), after every call was answered.
    expect(await exitWithin(worker, exited, 20_000)).toBe(0);
    expect(messages).toEqual([{ handled: expect.arrayContaining(['a', 'b', 'c']) }]);
    const echoed: string[] = [];
    await (await bus.replay(`${topic}.echo`, (m) => echoed.push(m.value))).stop();
    expect(echoed.sort()).toEqual(['echo:a', 'echo:b', 'echo:c']);
    const lag = await bus.lag([{ group: 'worker.echo', topic: topic as ConsumerGroupSpec['topic'] }]);
    expect(lag.map((r) => r.lag)).toEqual([0, 0]);
    await server.close();
  });

  it('a worker terminated mid-batch leaves it uncommitted: the group’s next member gets it, nothing dead-lettered', async () => {
    const topic = 'worker.hang';
    await openBus(topic);
    await bus.publish(topic, [{ key: 'k', value: 'in flight' }]);
    const { server, worker, exited } = startWorker(bus, { scenario: 'hang', topic, group: 'worker.hang', expected: 1 });
    await once(worker, 'message');
    await worker.terminate();
    await exited;
    await server.close();
    const next: string[] = [];
    await bus.subscribe({ group: 'worker.hang', topic, handler: async (b) => void next.push(...values(b)) });
    await eventually(() => expect(next).toEqual(['in flight']));
    expect(await bus.deadLetters.count(topic)).toEqual({ total: 0, pending: 0 });
  });
});
