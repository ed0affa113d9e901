import { BusUnavailableError } from '@formgate/bus';
import { createLogger } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { awaitedDependency, dependencyNamedBy } from '../src/boot-failure.ts';
import { createBootLoop, WAIT_LOG_EVERY_MS } from '../src/boot-loop.ts';

/** A logger whose warnings are kept (pino's JSON lines, parsed). */
function recordingLogger() {
  const lines: { level: number; msg: string; dependency?: string; attempt?: number }[] = [];
  const destination = { write: (line: string) => void lines.push(JSON.parse(line)) };
  return { logger: createLogger({ level: 'info', name: 'boot-test', destination }), lines };
}

const fast = { initialMs: 1, maxMs: 4 };
const up = { bus: async () => {}, stores: async () => true };

describe('the boot loop', () => {
  it('tries again after a dependency failure, closing each failed attempt, until one succeeds', async () => {
    const { logger, lines } = recordingLogger();
    let attempts = 0;
    let undone = 0;
    const loop = createBootLoop({
      logger,
      backoff: fast,
      attempt: async () => {
        if (++attempts < 4) throw new BusUnavailableError('cannot connect to Kafka');
        return 'built';
      },
      undo: async () => void undone++,
      awaited: (err) => awaitedDependency(err, up),
    });
    expect(await loop.run()).toBe('built');
    expect({ attempts, undone, awaiting: loop.awaiting() }).toEqual({ attempts: 4, undone: 3, awaiting: undefined });
    // One warning for the three failures (within WAIT_LOG_EVERY_MS), then the boot's end.
    expect(lines.filter((l) => l.level === 40).map((l) => [l.msg, l.dependency, l.attempt])).toEqual([
      ['waiting for kafka to start', 'kafka', 1],
    ]);
    expect(lines.at(-1)?.msg).toBe('boot done');
  });

  it('warns again once WAIT_LOG_EVERY_MS passed, and at once when what is awaited changes', async () => {
    const { logger, lines } = recordingLogger();
    let clock = 0;
    const failures = [
      new BusUnavailableError('no broker'),
      new BusUnavailableError('no broker'),
      new BusUnavailableError('no broker'),
      Object.assign(new Error('no server'), { name: 'MongooseServerSelectionError' }),
    ];
    let attempts = 0;
    const loop = createBootLoop({
      logger,
      backoff: fast,
      now: () => clock,
      attempt: async () => {
        const failure = failures[attempts++];
        clock += WAIT_LOG_EVERY_MS / 2 + 1;
        if (failure) throw failure;
        return 'built';
      },
      undo: async () => {},
      awaited: (err) => awaitedDependency(err, up),
    });
    await loop.run();
    expect(lines.filter((l) => l.level === 40).map((l) => [l.dependency, l.attempt])).toEqual([
      ['kafka', 1],
      ['kafka', 3],
      ['mongodb', 4],
    ]);
  });

  it('a failure that is not a dependency’s stops the boot with it, after closing the attempt', async () => {
    const { logger } = recordingLogger();
    const bug = new TypeError('x is undefined');
    let undone = 0;
    const loop = createBootLoop({
      logger,
      backoff: fast,
      attempt: () => Promise.reject(bug),
      undo: async () => void undone++,
      awaited: (err) => awaitedDependency(err, up),
    });
    await expect(loop.run()).rejects.toBe(bug);
    expect(undone).toBe(1);
  });

  it('stop() during the pause ends the loop at once, with nothing built', async () => {
    const { logger } = recordingLogger();
    let attempts = 0;
    const loop = createBootLoop({
      logger,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      attempt: async () => {
        attempts++;
        throw new BusUnavailableError('no broker');
      },
      undo: async () => {},
      awaited: (err) => awaitedDependency(err, up),
    });
    const run = loop.run();
    await new Promise((r) => setTimeout(r, 50));
    expect(loop.awaiting()).toBe('kafka');
    const began = Date.now();
    loop.stop();
    expect(await run).toBeUndefined();
    expect(Date.now() - began).toBeLessThan(1_000);
    expect(attempts).toBe(1);
  });
});

describe('what a failed boot attempt waits for', () => {
  it('names the bus, a retriable kafkajs error (also inside one that ran out of retries) and MongoDB', () => {
    const leaderless = Object.assign(new Error('no leader'), { name: 'KafkaJSProtocolError', retriable: true });
    const exhausted = Object.assign(new Error('retries'), {
      name: 'KafkaJSNumberOfRetriesExceeded',
      retriable: false,
      cause: leaderless,
    });
    expect(dependencyNamedBy(new BusUnavailableError('x'))).toBe('kafka');
    expect(dependencyNamedBy(exhausted)).toBe('kafka');
    expect(dependencyNamedBy(Object.assign(new Error('auth'), { name: 'KafkaJSNonRetriableError' }))).toBeUndefined();
    expect(dependencyNamedBy(new Error('wrapped', { cause: { name: 'MongoNetworkError' } }))).toBe('mongodb');
    expect(dependencyNamedBy(new TypeError('x'))).toBeUndefined();
  });

  it('any failure while the broker or a database does not answer waits for it; otherwise none', async () => {
    const bug = new TypeError('x is undefined');
    const brokerDown = { ...up, bus: () => Promise.reject(new BusUnavailableError('down')) };
    const storeDown = { ...up, stores: async () => false };
    expect(await awaitedDependency(bug, brokerDown)).toBe('kafka');
    expect(await awaitedDependency(bug, storeDown)).toBe('mongodb');
    expect(await awaitedDependency(bug, up)).toBeUndefined();
    // A driver error that is not an outage (a bad query) while the store answers is not waited for either.
    expect(await awaitedDependency(Object.assign(new Error('bad'), { name: 'MongoServerError', code: 2 }), up)).toBe(
      undefined,
    );
  });
});
