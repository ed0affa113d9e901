/**
 * Page buckets of the Mongo read model (ADR 0015, ADR 0059). Every submission is filed under one bucket of each of
 * a layout's grids: grid g is cut every `width` positions, shifted by g · `width / grids`. Any run of
 * `width − width / grids + 1` consecutive positions then lies in one bucket of one grid, so a page of that many
 * items is one equality read, and that read decodes at most `width` documents (FerretDB 1.24 applies the position
 * range after reading the bucket).
 *
 * - `pageLayout()` (ADR 0059): 4 grids of 136 (`c`–`f`): any 103 positions in one bucket, ≤ 136 documents a read.
 * - `legacyLayout()` (ADR 0015): 2 grids of 256 (`a`, `b`), the documents stored before a form's `pagesFrom`.
 */
export interface PageLayout {
  /** One letter per grid, the first of each key. */
  readonly letters: string;
  /** Positions per bucket: a multiple of the number of grids. */
  readonly width: number;
}

export const DEFAULT_PAGE_WIDTH = 136;
export const DEFAULT_LEGACY_PAGE_WIDTH = 256;

export const pageLayout = (width = DEFAULT_PAGE_WIDTH): PageLayout => checkLayout({ letters: 'cdef', width });
export const legacyLayout = (width = DEFAULT_LEGACY_PAGE_WIDTH): PageLayout => checkLayout({ letters: 'ab', width });

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
 * A form's page layouts: the documents at positions ≥ `pagesFrom` (its counter's; absent until its first batch
 * under ADR 0059) carry `current`'s keys, the ones below `legacy`'s.
 */
export interface FormPages {
  current: PageLayout;
  legacy: PageLayout;
  pagesFrom: number | undefined;
}

/** The bucket to read below `before` for one form: in the layout of `before - 1`, never reaching across `pagesFrom`. */
export function formBucketBelow(before: number, pages: FormPages): { key: string; low: number } {
  const { pagesFrom } = pages;
  if (pagesFrom === undefined || before - 1 < pagesFrom) return bucketBelow(before, pages.legacy);
  const b = bucketBelow(before, pages.current);
  return { key: b.key, low: Math.max(b.low, pagesFrom) };
}

/** The buckets covering [`from`, `to`) for one form: the first grid of each layout on its side of `pagesFrom`. */
export function formBucketsCovering(from: number, to: number, pages: FormPages): string[] {
  const split = pages.pagesFrom === undefined ? to : Math.min(Math.max(pages.pagesFrom, from), to);
  return [...bucketsCovering(from, split, pages.legacy), ...bucketsCovering(split, to, pages.current)];
}
