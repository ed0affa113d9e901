import { describe, expect, it } from 'vitest';
import { boundedMap, boundedMemo } from '../src/memo.ts';

describe('boundedMemo', () => {
  it('computes once per key, false and null answers included', () => {
    const calls: string[] = [];
    const memo = boundedMemo(10, (key) => {
      calls.push(key);
      return key === 'a' ? false : key === 'b' ? null : key.length;
    });
    expect([memo('a'), memo('b'), memo('ccc'), memo('a'), memo('b'), memo('ccc')]).toEqual([
      false,
      null,
      3,
      false,
      null,
      3,
    ]);
    expect(calls).toEqual(['a', 'b', 'ccc']);
  });

  it('forgets everything once it holds `limit` keys, and answers the same after', () => {
    const calls: string[] = [];
    const memo = boundedMemo(3, (key) => {
      calls.push(key);
      return key.toUpperCase();
    });
    for (const key of ['a', 'b', 'c', 'd', 'a']) expect(memo(key)).toBe(key.toUpperCase());
    // a, b, c kept; d arrives when full: the map restarts with d alone, so a is computed again.
    expect(calls).toEqual(['a', 'b', 'c', 'd', 'a']);
  });
});

describe('boundedMap', () => {
  it('keeps at most `limit` keys, forgetting all when a new one arrives full; replacing a key forgets nothing', () => {
    const map = boundedMap<number>(2);
    map.set('a', 1);
    map.set('b', 2);
    map.set('b', 3);
    expect([map.get('a'), map.get('b'), map.size]).toEqual([1, 3, 2]);
    map.set('c', 4);
    expect([map.get('a'), map.get('b'), map.get('c'), map.size]).toEqual([undefined, undefined, 4, 1]);
  });
});
