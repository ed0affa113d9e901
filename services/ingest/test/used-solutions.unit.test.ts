import { describe, expect, it } from 'vitest';
import { createLocalUsedSolutions } from '../src/spam/used-solutions.ts';

describe('local used solutions: what the abuse exchange reads and writes', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const later = new Date(now.getTime() + 60_000);

  it('hands out each proof claimed here once; a replayed or remembered one is not handed out', () => {
    const used = createLocalUsedSolutions(() => now);
    expect(used.claim('a', later)).toBe(true);
    expect(used.claim('a', later)).toBe(false);
    used.remember('b', later);
    expect(used.claim('b', later)).toBe(false);
    expect(used.drainClaimed()).toEqual([{ hash: 'a', expiresAt: later }]);
    expect(used.drainClaimed()).toEqual([]);
  });
});
