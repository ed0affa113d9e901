/**
 * Page buckets of the Mongo read model (ADR 0015). Every submission is filed under two buckets of `width`
 * positions, one per grid, the second grid shifted by half a width: any `width / 2` consecutive positions then lie
 * in one bucket of one grid, so a page of up to `width / 2` items is one equality read.
 */
export const DEFAULT_PAGE_WIDTH = 256;

export function checkPageWidth(width: number): number {
  if (!Number.isInteger(width) || width < 2 || width % 2 !== 0) {
    throw new Error(`page width must be an even integer ≥ 2, not ${width}`);
  }
  return width;
}

/** The two bucket keys of position `seq`. */
export function bucketKeys(seq: number, width: number): [string, string] {
  return [`a${Math.floor(seq / width)}`, `b${Math.floor((seq + width / 2) / width)}`];
}

/**
 * The bucket to read for the positions just below `before` (> 0): of the two holding `before - 1`, the one that
 * reaches further down. `low` is its lowest position; the positions in [`low`, `before`) are all in it.
 */
export function bucketBelow(before: number, width: number): { key: string; low: number } {
  const top = before - 1;
  const a = Math.floor(top / width);
  const b = Math.floor((top + width / 2) / width);
  const lowA = a * width;
  const lowB = Math.max(0, b * width - width / 2);
  return lowA <= lowB ? { key: `a${a}`, low: lowA } : { key: `b${b}`, low: lowB };
}

/** The grid-`a` keys covering the positions [`from`, `to`). */
export function bucketsCovering(from: number, to: number, width: number): string[] {
  const keys: string[] = [];
  if (to <= from) return keys;
  for (let k = Math.floor(from / width); k * width < to; k++) keys.push(`a${k}`);
  return keys;
}
