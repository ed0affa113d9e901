/** A fixed-window counter per key, in memory (one gateway process); old windows are dropped as they pass. */
export function createFixedWindowLimiter(options: { max: number; windowMs: number; now?: () => number }) {
  const now = options.now ?? Date.now;
  let windowStart = now();
  let counts = new Map<string, number>();
  return {
    /** Counts one hit for `key`; false when the window's budget is spent. */
    take(key: string): boolean {
      const t = now();
      if (t - windowStart >= options.windowMs) {
        windowStart = t;
        counts = new Map();
      }
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      return n <= options.max;
    },
  };
}
