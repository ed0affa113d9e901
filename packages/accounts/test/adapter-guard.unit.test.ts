import { AppError } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { AccountsUnavailableError, guardAdapter, isUnreachable } from '../src/adapter-guard.ts';

/** A better-auth adapter whose `findOne` fails with `error`. */
const failingWith = (error: Error) => ({ findOne: async (_query: unknown) => Promise.reject(error) });
const query = { model: 'user', where: [] };

describe('the accounts adapter guard', () => {
  it('an error the driver words as an outage is AccountsUnavailableError (503), whatever the probe says', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const guarded = guardAdapter(failingWith(refused), { timeoutMs: 1_000, storeHealthy: async () => true });
    const err = await guarded.findOne(query).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AccountsUnavailableError);
    expect(isUnreachable(err)).toBe(true);
  });

  it('an unknown error while a real round trip fails is AccountsUnavailableError: never a 500 for an outage', async () => {
    // FerretDB's answer with its PostgreSQL down, as a driver error that names nothing the classifier knows.
    const storageDown = Object.assign(new Error('backend gone'), { name: 'MongoServerError', code: 1 });
    const down = guardAdapter(failingWith(storageDown), { timeoutMs: 1_000, storeHealthy: async () => false });
    expect(await down.findOne(query).catch((e: unknown) => e)).toBeInstanceOf(AccountsUnavailableError);
    const throwingProbe = guardAdapter(failingWith(storageDown), {
      timeoutMs: 1_000,
      storeHealthy: () => Promise.reject(new Error('probe failed')),
    });
    expect(await throwingProbe.findOne(query).catch((e: unknown) => e)).toBeInstanceOf(AccountsUnavailableError);
  });

  it('an unknown error while the store answers passes through unchanged (a bug stays visible as one)', async () => {
    const bug = new TypeError('x is undefined');
    const up = guardAdapter(failingWith(bug), { timeoutMs: 1_000, storeHealthy: async () => true });
    expect(await up.findOne(query).catch((e: unknown) => e)).toBe(bug);
    const unprobed = guardAdapter(failingWith(bug), { timeoutMs: 1_000 });
    expect(await unprobed.findOne(query).catch((e: unknown) => e)).toBe(bug);
  });

  it('an AppError is judged by its cause, not by its own retryable flag (a 429 is not an outage)', () => {
    expect(isUnreachable(new AppError('RATE_LIMITED'))).toBe(false);
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(isUnreachable(new AppError('INTERNAL', undefined, { cause: refused }))).toBe(true);
  });
});
