import { describe, expect, it } from 'vitest';
import {
  bucketBelow,
  bucketKeys,
  bucketsCovering,
  checkLayout,
  type FormPages,
  formBucketBelow,
  formBucketsCovering,
  legacyLayout,
  type PageLayout,
  pageLayout,
} from '../src/store/page-buckets.ts';

/** The positions filed under `key` in `layout`, among [0, end). */
const filedUnder = (key: string, layout: PageLayout, end: number) =>
  Array.from({ length: end }, (_, seq) => seq).filter((seq) => bucketKeys(seq, layout).includes(key));

describe('page buckets', () => {
  it('reads the positions below any cursor from one bucket holding at least a width less a shift of them', () => {
    for (const layout of [legacyLayout(2), legacyLayout(8), pageLayout(4), pageLayout(8), pageLayout(16)]) {
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

  it('files each position under one bucket per grid, with distinct letters for the two layouts', () => {
    expect(bucketKeys(100_000, legacyLayout())).toEqual(['a390', 'b391']);
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
    // ADR 0015's legacy layout needed up to 256 for the same page.
    expect(100_000 - bucketBelow(100_000, legacyLayout()).low).toBe(160);
    expect(100_000 - bucketBelow(100_000, layout).low).toBe(108);
  });

  it('names the first grid buckets covering a range of positions', () => {
    expect(bucketsCovering(3, 7, legacyLayout(4))).toEqual(['a0', 'a1']);
    expect(bucketsCovering(4, 8, legacyLayout(4))).toEqual(['a1']);
    expect(bucketsCovering(5, 5, legacyLayout(4))).toEqual([]);
    expect(bucketsCovering(3, 9, pageLayout(4))).toEqual(['c0', 'c1', 'c2']);
  });

  it("reads a form's positions in the layout they were filed under, never across `pagesFrom`", () => {
    const pages: FormPages = { current: pageLayout(8), legacy: legacyLayout(8), pagesFrom: 21 };
    const seen: number[] = [];
    for (let before = 40; before > 0; ) {
      const { key, low } = formBucketBelow(before, pages);
      const layout = before - 1 >= 21 ? pages.current : pages.legacy;
      for (let seq = low; seq < before; seq++) {
        expect(bucketKeys(seq, layout)).toContain(key);
        seen.push(seq);
      }
      before = low;
    }
    // Every position once, top down.
    expect(seen.sort((a, b) => b - a)).toEqual(Array.from({ length: 40 }, (_, i) => 39 - i));
    // Without `pagesFrom` (a form not written since ADR 0059), every position is legacy.
    expect(formBucketBelow(40, { ...pages, pagesFrom: undefined })).toEqual(bucketBelow(40, pages.legacy));
    expect(formBucketsCovering(18, 30, pages)).toEqual(['a2', 'c2', 'c3']);
    expect(formBucketsCovering(22, 30, pages)).toEqual(['c2', 'c3']);
    expect(formBucketsCovering(10, 15, pages)).toEqual(['a1']);
    expect(formBucketsCovering(10, 15, { ...pages, pagesFrom: undefined })).toEqual(['a1']);
  });

  it('accepts only widths that are a multiple of the number of grids', () => {
    expect(pageLayout(136).width).toBe(136);
    expect(legacyLayout(256).width).toBe(256);
    for (const bad of [0, 6, 2.5, -4]) expect(() => pageLayout(bad)).toThrow(/multiple of 4/);
    expect(() => checkLayout({ letters: 'ab', width: 3 })).toThrow(/multiple of 2/);
  });
});
