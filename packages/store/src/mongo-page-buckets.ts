import { isFerretDb, type MongoDb } from './mongo.ts';

/**
 * Page buckets (ADR 0015, ADR 0059): how a newest-first list of positions (`seq`) is read a page at a time on
 * FerretDB 1.24, which pushes down only equality filters and applies a range (`seq < cursor`) after decoding every
 * document the equality matched. Every document is filed under one bucket of each of a layout's grids (its
 * `buckets` array): grid g is cut every `width` positions, shifted by g · `width / grids`. Any run of
 * `width − width / grids + 1` consecutive positions then lies in one bucket of one grid, so a page of that many
 * items is one equality read (on (owner, `buckets`)), and that read decodes at most `width` documents.
 *
 * On MongoDB this is unnecessary: an index ending in `seq: -1` serves `find({owner, seq: {$lt: cursor}})
 * .sort({seq: -1}).limit(n)` by reading n index entries at any depth. The buckets cost one multikey index entry per
 * grid on each insert there, and keep one document layout valid on both servers.
 */
export interface PageLayout {
  /** One letter per grid, the first of each key. */
  readonly letters: string;
  /** Positions per bucket: a multiple of the number of grids. */
  readonly width: number;
}

export const DEFAULT_PAGE_WIDTH = 136;

/** How a newest-first list (or a filtered page of it) is read: one indexed find, or page buckets first. */
export type PageRead = 'index' | 'buckets';

/**
 * The read this server needs: `buckets` on FerretDB 1.24, where `find(filter).sort({seq: -1}).limit(n)` decodes and
 * sorts every match of the filter's equalities in Go (over 10 s for a word in all of 100,000 submissions); `index` on
 * MongoDB, where an index on the equalities and then `seq: -1` serves that find in order and stops at the n-th match.
 */
export const pageReadFor = async (db: MongoDb): Promise<PageRead> => ((await isFerretDb(db)) ? 'buckets' : 'index');

/** Four grids of `width` (136: any 103 positions in one bucket, ≤ 136 documents a read; ADR 0059). */
export const pageLayout = (width = DEFAULT_PAGE_WIDTH): PageLayout => checkLayout({ letters: 'cdef', width });

export function checkLayout(layout: PageLayout): PageLayout {
  const { width, letters } = layout;
  if (!Number.isInteger(width) || width < letters.length || width % letters.length !== 0) {
    throw new Error(`page width must be a positive multiple of ${letters.length}, not ${width}`);
  }
  return layout;
}

const shiftOf = (layout: PageLayout) => layout.width / layout.letters.length;

/** The bucket keys of position `seq`, one per grid. */
export function bucketKeys(seq: number, layout: PageLayout): string[] {
  const shift = shiftOf(layout);
  return [...layout.letters].map((l, g) => `${l}${Math.floor((seq + g * shift) / layout.width)}`);
}

/**
 * The bucket to read for the positions just below `before` (> 0): of the buckets holding `before - 1`, the one that
 * reaches furthest down. `low` is its lowest position; the positions in [`low`, `before`) are all in it.
 */
export function bucketBelow(before: number, layout: PageLayout): { key: string; low: number } {
  const top = before - 1;
  const shift = shiftOf(layout);
  let best = { key: '', low: Number.POSITIVE_INFINITY };
  [...layout.letters].forEach((l, g) => {
    const k = Math.floor((top + g * shift) / layout.width);
    const low = Math.max(0, k * layout.width - g * shift);
    if (low < best.low) best = { key: `${l}${k}`, low };
  });
  return best;
}

/** The first grid's keys covering the positions [`from`, `to`). */
export function bucketsCovering(from: number, to: number, layout: PageLayout): string[] {
  const keys: string[] = [];
  if (to <= from) return keys;
  const [first] = layout.letters;
  for (let k = Math.floor(from / layout.width); k * layout.width < to; k++) keys.push(`${first}${k}`);
  return keys;
}

/**
 * Reads up to `limit` items below position `before`, newest first, one bucket at a time from the top down:
 * `readBucket(key, before, n)` reads at most `n` items of bucket `key` with `seq < before`, newest first.
 * With `readRest`, a sparse match (a filter, a search) stops walking once the matches seen so far predict at most
 * `maxMatches` further ones below, or after `maxReads` buckets, and reads the rest with one `read` (FerretDB then
 * decodes and sorts all of them: cheap only when they are few).
 */
export async function readDownPageBuckets<T>(opts: {
  before: number;
  limit: number;
  layout: PageLayout;
  readBucket: (key: string, before: number, n: number) => Promise<T[]>;
  readRest?: { read: (before: number, n: number) => Promise<T[]>; maxReads: number; maxMatches: number };
}): Promise<T[]> {
  const { limit, layout, readBucket, readRest } = opts;
  const page: T[] = [];
  let before = opts.before;
  let covered = 0;
  for (let reads = 0; page.length < limit && before > 0; reads++) {
    if (
      readRest &&
      reads > 0 &&
      (reads >= readRest.maxReads || (page.length / covered) * before <= readRest.maxMatches)
    ) {
      page.push(...(await readRest.read(before, limit - page.length)));
      return page;
    }
    const { key, low } = bucketBelow(before, layout);
    page.push(...(await readBucket(key, before, limit - page.length)));
    covered += before - low;
    before = low;
  }
  return page;
}
