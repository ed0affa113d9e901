import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMongoWriteGroup } from '../src/mongo-write-group.ts';

/** A group over a write that records what each command held, answering each item doubled. */
function doubling(options?: { gatherMs?: number }) {
  const commands: number[][] = [];
  const group = createMongoWriteGroup(async (items: number[]) => {
    commands.push(items);
    await new Promise((resolve) => setTimeout(resolve, 10));
    return items.map((n) => n * 2);
  }, options);
  return { commands, group };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('createMongoWriteGroup', () => {
  it('writes a lone item at once and gathers what arrives while that write is under way', async () => {
    const { commands, group } = doubling();
    const first = group.submit(1);
    expect(commands).toEqual([[1]]);
    const rest = [group.submit(2), group.submit(3)];
    expect(await Promise.all([first, ...rest])).toEqual([2, 4, 6]);
    expect(commands).toEqual([[1], [2, 3]]);
  });

  it('with gatherMs, holds the first item of an idle moment that long for the ones that follow', async () => {
    vi.useFakeTimers();
    const { commands, group } = doubling({ gatherMs: 50 });
    const answers = [group.submit(1)];
    await vi.advanceTimersByTimeAsync(30);
    answers.push(group.submit(2));
    expect(commands).toEqual([]);
    await vi.advanceTimersByTimeAsync(20);
    expect(commands).toEqual([[1, 2]]);
    // Arriving during the write, it goes in the next one without a new wait.
    answers.push(group.submit(3));
    await vi.advanceTimersByTimeAsync(10);
    expect(commands).toEqual([[1, 2], [3]]);
    await vi.advanceTimersByTimeAsync(10);
    expect(await Promise.all(answers)).toEqual([2, 4, 6]);
    // Idle again: the next item waits anew.
    const later = group.submit(4);
    await vi.advanceTimersByTimeAsync(49);
    expect(commands).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(11);
    expect(await later).toBe(8);
    expect(commands).toEqual([[1, 2], [3], [4]]);
  });

  it('rejects every caller of a write that throws, and the next items are written anew', async () => {
    let fail = true;
    const group = createMongoWriteGroup(async (items: string[]) => {
      if (fail) throw new Error('store down');
      return items;
    });
    const failed = [group.submit('a'), group.submit('b')];
    await expect(Promise.all(failed.map((p) => p.catch((e: Error) => e.message)))).resolves.toEqual([
      'store down',
      'store down',
    ]);
    fail = false;
    expect(await group.submit('c')).toBe('c');
  });
});
