/**
 * `compute`, remembered per key for at most `limit` distinct keys: when full, everything is forgotten at once. A cheap
 * bound for hot-path caches whose keys are few in practice (peers, forms, origins) but come from the outside, so an
 * attacker cycling keys costs a recomputation, never memory. `compute` must not answer `undefined`.
 */
export function boundedMemo<V extends NonNullable<unknown> | null>(
  limit: number,
  compute: (key: string) => V,
): (key: string) => V {
  let memo = new Map<string, V>();
  return (key) => {
    let value = memo.get(key);
    if (value === undefined) {
      value = compute(key);
      if (memo.size >= limit) memo = new Map();
      memo.set(key, value);
    }
    return value;
  };
}
