/**
 * A map of at most `limit` keys: when full, everything is forgotten at once. A cheap bound for hot-path caches whose
 * keys are few in practice (peers, forms, origins) but come from the outside, so an attacker cycling keys costs a
 * recomputation, never memory.
 */
export interface BoundedMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  /** Keys held (for tests and health output). */
  readonly size: number;
}

export function boundedMap<V>(limit: number): BoundedMap<V> {
  let map = new Map<string, V>();
  return {
    get: (key) => map.get(key),
    set(key, value) {
      if (!map.has(key) && map.size >= limit) map = new Map();
      map.set(key, value);
    },
    get size() {
      return map.size;
    },
  };
}

/**
 * `compute`, remembered per key in a `boundedMap` of `limit` keys. `compute` must not answer `undefined`.
 */
export function boundedMemo<V extends NonNullable<unknown> | null>(
  limit: number,
  compute: (key: string) => V,
): (key: string) => V {
  const memo = boundedMap<V>(limit);
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      memo.set(key, value);
    }
    return value;
  };
}
