import { describe, expect, it } from 'vitest';
import type { MongoDb } from '../src/mongo.ts';
import {
  bucketBelow,
  bucketKeys,
  bucketsCovering,
  checkLayout,
  type PageLayout,
  pageLayout,
  pageReadFor,
  readDownPageBuckets,
} from '../src/mongo-page-buckets.ts';

/** The positions filed under `key` in `layout`, among [0, end). */
const filedUnder = (key: string, layout: PageLayout, end: number) =>
  Array.from({ length: end }, (_, seq) => seq).filter((seq) => bucketKeys(seq, layout).includes(key));

describe('page buckets', () => {
  it('reads the positions below any cursor from one bucket holding at least a width less a shift of them', () => {
    for (const layout of [checkLayout({ letters: 'ab', width: 2 }), pageLayout(4), pageLayout(8), pageLayout(16)]) {
      const { width } = layout;
      const reach = width - width / layout.letters.length + 1;
      for (let before = 1; before < width * 4; before++) {
        const { key, low } = bucketBelow(before, layout);
        expect(before - low).toBeGreaterThanOrEqual(Math.min(before, reach));
        // Its bucket is one run of at most `width` positions starting at `low`, holding every one below `before`.
        const filed = filedUnder(key, layout, width * 6);
        expect(filed[0]).toBe(low);
        expect(filed.length).toBeLessThanOrEqual(width);
        expect(filed.at(-1)).toBe(low + filed.length - 1);
        expect(filed.length).toBeGreaterThanOrEqual(before - low);
      }
    }
  });

  it('files each position under one bucket per grid', () => {
    expect(bucketKeys(100_000, pageLayout())).toEqual(['c735', 'd735', 'e735', 'f736']);
  });

  it('reads a full page (101 positions) from one bucket of at most 136 with the default layout', () => {
    const layout = pageLayout();
    for (let before = 101; before < 2_000; before++) {
      const { key, low } = bucketBelow(before, layout);
      expect(before - low).toBeGreaterThanOrEqual(Math.min(before, 103));
      expect(before - low).toBeLessThanOrEqual(136);
      expect(bucketKeys(before - 1, layout)).toContain(key);
      expect(bucketKeys(before - 101, layout)).toContain(key);
    }
    expect(100_000 - bucketBelow(100_000, layout).low).toBe(108);
  });

  it('names the first grid buckets covering a range of positions', () => {
    expect(bucketsCovering(3, 7, pageLayout(4))).toEqual(['c0', 'c1']);
    expect(bucketsCovering(4, 8, pageLayout(4))).toEqual(['c1']);
    expect(bucketsCovering(5, 5, pageLayout(4))).toEqual([]);
    expect(bucketsCovering(3, 9, pageLayout(4))).toEqual(['c0', 'c1', 'c2']);
  });

  it('reads down the buckets newest first until the page is full, each position once', async () => {
    const layout = pageLayout(8);
    const reads: string[] = [];
    const readBucket = async (key: string, before: number, n: number) => {
      reads.push(key);
      return Array.from({ length: before }, (_, i) => before - 1 - i)
        .filter((seq) => bucketKeys(seq, layout).includes(key))
        .slice(0, n);
    };
    expect(await readDownPageBuckets({ before: 40, limit: 100, layout, readBucket })).toEqual(
      Array.from({ length: 40 }, (_, i) => 39 - i),
    );
    expect(await readDownPageBuckets({ before: 40, limit: 3, layout, readBucket })).toEqual([39, 38, 37]);
    expect(await readDownPageBuckets({ before: 0, limit: 3, layout, readBucket })).toEqual([]);
  });

  it('reads the rest in one read once the matches seen predict few more below, or after the most bucket reads', async () => {
    const layout = pageLayout(8);
    const rest: number[] = [];
    const readRest = (maxReads: number, maxMatches: number) => ({
      maxReads,
      maxMatches,
      read: async (before: number, n: number) => {
        rest.push(before);
        return Array.from({ length: Math.min(n, before) }, (_, i) => before - 1 - i);
      },
    });
    const none = async () => [] as number[];
    // Nothing matched in the first bucket: at most 0 predicted below, so the rest is one read.
    expect(
      await readDownPageBuckets({ before: 1_000, limit: 5, layout, readBucket: none, readRest: readRest(8, 0) }),
    ).toHaveLength(5);
    expect(rest).toEqual([bucketBelow(1_000, layout).low]);
    rest.length = 0;
    const one = async (_key: string, before: number) => [before - 1];
    await readDownPageBuckets({ before: 1_000, limit: 50, layout, readBucket: one, readRest: readRest(3, 0) });
    expect(rest).toHaveLength(1);
  });

  it('accepts only widths that are a multiple of the number of grids', () => {
    expect(pageLayout(136).width).toBe(136);
    for (const bad of [0, 6, 2.5, -4]) expect(() => pageLayout(bad)).toThrow(/multiple of 4/);
    expect(() => checkLayout({ letters: 'ab', width: 3 })).toThrow(/multiple of 2/);
  });
});

describe('pageReadFor', () => {
  /** A database whose server answers `buildInfo` with `info`. */
  const serverAnswering = (info: Record<string, unknown>) =>
    ({ admin: () => ({ command: async () => ({ ok: 1, ...info }) }) }) as unknown as MongoDb;

  it('reads pages by buckets on FerretDB, which names itself in its build info, and by one indexed find on MongoDB', async () => {
    // The fields that tell the servers apart, as FerretDB 1.24 and MongoDB 7 answer.
    const ferretDb = { version: '7.0.42', gitVersion: 'unknown', ferretdbVersion: 'v1.24.2', ferretdbFeatures: {} };
    const mongoDb = { version: '7.0.14', gitVersion: 'ce59cfc6a3c5e5c067dca0d30697edd68d4f5188', modules: [] };
    expect(await pageReadFor(serverAnswering(ferretDb))).toBe('buckets');
    expect(await pageReadFor(serverAnswering(mongoDb))).toBe('index');
  });
});
