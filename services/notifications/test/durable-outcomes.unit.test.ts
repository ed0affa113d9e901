import { AppError } from '@formgate/contracts';
import { createLogger } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { createDurableOutcomes } from '../src/deliveries/durable-outcomes.ts';

/** A store that cannot be reached, as the MongoDB driver says it. */
const networkError = () => Object.assign(new Error('connection refused'), { name: 'MongoNetworkError' });

/** `createDurableOutcomes` on a test clock, with waits of 1–8 ms. */
function outcomesAt(now: { ms: number }) {
  return createDurableOutcomes({
    clock: { now: () => new Date(now.ms) },
    logger: createLogger({ level: 'silent', name: 'notifications' }),
    random: () => 0.5,
    retry: { firstMs: 1, maxMs: 8 },
    graceMs: 30_000,
  });
}

/** A write that fails `failures` times, then answers `value`; `calls` counts its calls. */
function failing<T>(failures: number, value: T, error: () => Error = networkError) {
  const state = { calls: 0 };
  const write = async () => {
    state.calls += 1;
    if (state.calls <= failures) throw error();
    return value;
  };
  return { write, state };
}

describe('durable outcomes (ADR 66)', () => {
  it('writes an outcome again until the store takes it, and answers what the write answered', async () => {
    const outcomes = outcomesAt({ ms: 0 });
    const { write, state } = failing(6, 'recorded');
    expect(await outcomes.retryUntilRecorded(write, { deliveryId: 'd1' })).toBe('recorded');
    expect(state.calls).toBe(7);
  });

  it('gives up at once on a failure that retrying cannot help', async () => {
    const outcomes = outcomesAt({ ms: 0 });
    const { write, state } = failing(1, 'recorded', () => new AppError('VALIDATION_FAILED'));
    await expect(outcomes.retryUntilRecorded(write, {})).rejects.toBeInstanceOf(AppError);
    expect(state.calls).toBe(1);
  });

  it('gives up on shutdown: what is unwritten then is left to its lease', async () => {
    const outcomes = outcomesAt({ ms: 0 });
    const { write, state } = failing(Number.POSITIVE_INFINITY, 'never');
    const waiting = outcomes.retryUntilRecorded(write, {});
    await new Promise((r) => setTimeout(r, 30));
    outcomes.stop();
    await expect(waiting).rejects.toMatchObject({ name: 'MongoNetworkError' });
    const calls = state.calls;
    await new Promise((r) => setTimeout(r, 30));
    expect(calls).toBeGreaterThan(1);
    expect(state.calls).toBe(calls);
  });

  it('takes over no lease until the store has answered for the grace since the last failure', async () => {
    const now = { ms: 1_000_000 };
    const outcomes = outcomesAt(now);
    expect(outcomes.mayTakeOver()).toBe(true);
    await outcomes.retryUntilRecorded(failing(1, 'ok').write, {});
    expect(outcomes.mayTakeOver()).toBe(false);
    now.ms += 29_999;
    expect(outcomes.mayTakeOver()).toBe(false);
    now.ms += 1;
    expect(outcomes.mayTakeOver()).toBe(true);
    // The retry worker's failed passes count as well.
    outcomes.failed();
    expect(outcomes.mayTakeOver()).toBe(false);
  });
});
