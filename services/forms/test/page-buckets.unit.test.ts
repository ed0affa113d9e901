import { describe, expect, it } from 'vitest';
import { bucketBelow, bucketKeys, bucketsCovering, checkPageWidth } from '../src/store/page-buckets.ts';

describe('page buckets', () => {
  it('reads the positions below any cursor from one bucket holding at least half a width of them', () => {
    for (const width of [2, 8, 16]) {
      for (let before = 1; before < width * 4; before++) {
        const { key, low } = bucketBelow(before, width);
        expect(before - low).toBeGreaterThanOrEqual(Math.min(before, width / 2));
        for (let seq = low; seq < before; seq++) expect(bucketKeys(seq, width)).toContain(key);
        // ...and nothing outside [low, low + width) is filed under that key.
        for (const seq of [low - 1, low + width].filter((s) => s >= 0)) {
          expect(bucketKeys(seq, width)).not.toContain(key);
        }
      }
    }
  });

  it('reads a full page from one bucket with the default width', () => {
    for (const before of [101, 127, 128, 129, 255, 256, 257, 384, 100_000]) {
      const { key, low } = bucketBelow(before, 256);
      expect(before - low).toBeGreaterThanOrEqual(Math.min(before, 128));
      expect(bucketKeys(before - 1, 256)).toContain(key);
      expect(bucketKeys(before - 101, 256)).toContain(key);
    }
  });

  it('names the grid-a buckets covering a range of positions', () => {
    expect(bucketsCovering(3, 7, 4)).toEqual(['a0', 'a1']);
    expect(bucketsCovering(4, 8, 4)).toEqual(['a1']);
    expect(bucketsCovering(5, 5, 4)).toEqual([]);
  });

  it('accepts only even widths', () => {
    expect(checkPageWidth(256)).toBe(256);
    for (const bad of [0, 3, 2.5, -4]) expect(() => checkPageWidth(bad)).toThrow(/even integer/);
  });
});
