import { describe, expect, it } from 'vitest';
import { DeliveryAborted, type DeliveryContext, deliver, type TransientWait } from '../src/delivery.ts';
import { type BusMessage, BusUnavailableError, type OutgoingMessage } from '../src/event-bus.ts';

const message = (value: string, offset: number): BusMessage => ({
  topic: 'forms.submission',
  partition: 0,
  offset: String(offset),
  key: 'k',
  value,
  headers: { h: value },
  timestamp: 0,
});
const batch = ['a', 'bad', 'c'].map(message);
const transientError = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' });
const permanentError = () => Object.assign(new Error('invalid payload'), { retryable: false });
/** Delivers one message whose handler always fails for an unknown reason, calling `onCall` first each time. */
const deliverPoison = (ctx: DeliveryContext, onCall: () => void) =>
  deliver(
    [message('bad', 0)],
    async () => {
      onCall();
      throw new Error('cannot handle');
    },
    ctx,
  );

/** A delivery context whose dead-letter publisher records what it was given (and can be made to refuse). */
function context(refusals = 0, signal = new AbortController().signal) {
  const dead: { topic: string; record: OutgoingMessage }[] = [];
  const waits: TransientWait[] = [];
  let refuse = refusals;
  const ctx: DeliveryContext = {
    group: 'forms.test',
    policy: { attempts: 3, initialDelayMs: 1, maxDelayMs: 4 },
    signal,
    dlq: {
      publish: async (topic, records) => {
        if (refuse-- > 0) throw new BusUnavailableError('event log is overloaded');
        for (const record of records) dead.push({ topic, record });
      },
    },
    onTransient: (_err, wait) => void waits.push(wait),
  };
  return { ctx, dead, waits };
}

describe('deliver', () => {
  it('retries a transient failure past the unknown-failure attempts, reporting the wait once, and dead-letters nothing', async () => {
    const { ctx, dead, waits } = context();
    const calls: string[][] = [];
    await deliver(
      batch,
      async (b) => {
        calls.push(b.map((m) => m.value));
        if (calls.length <= 12) throw transientError();
      },
      ctx,
    );
    expect(calls).toHaveLength(13);
    expect(calls.every((c) => c.length === 3)).toBe(true);
    expect(dead).toEqual([]);
    expect(waits).toEqual([{ attempts: 1, waitingMs: 0 }]);
  });

  it('on a permanent failure halves the batch until the bad message is alone, and dead-letters it at once', async () => {
    const { ctx, dead } = context();
    const calls: string[][] = [];
    await deliver(
      batch,
      async (b) => {
        calls.push(b.map((m) => m.value));
        if (b.some((m) => m.value === 'bad')) throw permanentError();
      },
      ctx,
    );
    expect(calls).toEqual([['a', 'bad', 'c'], ['a', 'bad'], ['a'], ['bad'], ['c']]);
    expect(dead.map((d) => [d.topic, d.record.value, d.record.headers?.['x-failure']])).toEqual([
      ['forms.submission.dlq', 'bad', 'permanent'],
    ]);
    const headers = dead[0]?.record.headers ?? {};
    expect(headers).toMatchObject({ h: 'bad', 'x-error': 'invalid payload', 'x-group': 'forms.test' });
    expect(headers).toMatchObject({ 'x-partition': '0', 'x-offset': '1' });
    expect(Date.parse(headers['x-dead-lettered-at'] ?? '')).toBeGreaterThan(Date.now() - 60_000);
  });

  it('on an unknown failure tries the batch and the bad message alone `attempts` times, a half once', async () => {
    const { ctx, dead } = context();
    const calls: string[][] = [];
    await deliver(
      batch,
      async (b) => {
        calls.push(b.map((m) => m.value));
        if (b.some((m) => m.value === 'bad')) throw new Error('cannot handle');
      },
      ctx,
    );
    expect(calls.filter((c) => c.length === 3)).toHaveLength(3);
    expect(calls.filter((c) => c.length === 1 && c[0] === 'bad')).toHaveLength(3);
    expect(calls.filter((c) => c.length === 2)).toEqual([['a', 'bad']]);
    expect(dead.map((d) => [d.record.value, d.record.headers?.['x-failure']])).toEqual([['bad', 'unknown']]);
  });

  it('finds two poison pills in a batch of 1,000 in a few dozen calls; every other message handled, in order', async () => {
    const { ctx, dead } = context();
    const big = Array.from({ length: 1_000 }, (_, i) => message(i === 137 || i === 802 ? `bad-${i}` : `ok-${i}`, i));
    let calls = 0;
    const handled: string[] = [];
    await deliver(
      big,
      async (b) => {
        calls++;
        if (b.some((m) => m.value.startsWith('bad'))) throw permanentError();
        handled.push(...b.map((m) => m.value));
      },
      ctx,
    );
    expect(dead.map((d) => d.record.value)).toEqual(['bad-137', 'bad-802']);
    expect(handled).toEqual(big.map((m) => m.value).filter((v) => v.startsWith('ok')));
    // One call for the batch, then per pill at most two per halving (log2 1000 ≈ 10): far from one per message.
    expect(calls).toBeLessThanOrEqual(1 + 2 * 2 * 10);
  });

  it('waits out an unavailable dead-letter topic instead of giving up on the batch', async () => {
    const { ctx, dead } = context(3);
    await deliver(
      [message('bad', 7)],
      async () => {
        throw permanentError();
      },
      ctx,
    );
    expect(dead.map((d) => d.record.value)).toEqual(['bad']);
  });

  it('stops waiting on a transient failure as soon as the signal aborts, and rejects with DeliveryAborted', async () => {
    const stop = new AbortController();
    const { ctx, dead } = context(0, stop.signal);
    ctx.policy = { attempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 };
    let calls = 0;
    const delivering = deliver(
      batch,
      async () => {
        calls++;
        throw transientError();
      },
      ctx,
    );
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    stop.abort();
    await expect(delivering).rejects.toBeInstanceOf(DeliveryAborted);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect([calls, dead.length]).toEqual([1, 0]);
  });

  it('never dead-letters an unknown failure while the stores do not answer; once they do, the policy applies', async () => {
    const { ctx, dead, waits } = context();
    let storeUp = false;
    let probes = 0;
    ctx.storeHealthy = async () => {
      probes++;
      return storeUp;
    };
    const calls: string[][] = [];
    // FerretDB's answer with its PostgreSQL down, reworded: nothing in the error itself says "transient".
    const storageDown = new Error('InternalError: backend is gone');
    await deliver(
      [message('only', 0)],
      async (b) => {
        calls.push(b.map((m) => m.value));
        if (calls.length === 20) storeUp = true;
        if (!storeUp) throw storageDown;
      },
      ctx,
    );
    // 19 failures (the policy allows 3) waited while the store was down; with it back the record is handled.
    expect(calls).toHaveLength(20);
    expect(dead).toEqual([]);
    expect(probes).toBe(19);
    expect(waits[0]?.attempts).toBe(1);
  });

  it('dead-letters an unknown failure after its attempts when the stores answer (a poison message stays poison)', async () => {
    const { ctx, dead } = context();
    ctx.storeHealthy = async () => true;
    let calls = 0;
    await deliverPoison(ctx, () => calls++);
    expect(calls).toBe(3);
    expect(dead.map((d) => d.record.headers?.['x-failure'])).toEqual(['unknown']);
  });

  it('a probe that throws counts as a sick store', async () => {
    const { ctx, dead } = context();
    let calls = 0;
    ctx.storeHealthy = async () => {
      if (calls < 10) throw new Error('probe failed');
      return true;
    };
    await deliverPoison(ctx, () => calls++);
    expect(calls).toBe(12);
    expect(dead).toHaveLength(1);
  });

  it('counts only unknown failures in a row with the stores answering, and asks afresh before the last one', async () => {
    const { ctx, dead } = context();
    const asked: (boolean | undefined)[] = [];
    let calls = 0;
    // Two failures with the store up, one while it is down (the count starts again), then three more with it up.
    ctx.storeHealthy = async (options) => {
      asked.push(options?.fresh);
      return calls !== 3;
    };
    await deliverPoison(ctx, () => calls++);
    expect(calls).toBe(6);
    expect(dead).toHaveLength(1);
    // The policy allows 3: a failure that would be the third in a row asks for a round trip made after it.
    expect(asked).toEqual([false, false, true, false, false, true]);
  });
});
