/**
 * Who waits for a view to reach a version of one entity (a form, an organization's settings): the gateway, before
 * it answers a change of settings (read your own settings, `SETTLE_HEADER`). `reached` is called by the view as it
 * applies a record; a wait resolves true once the view has the version, or false after its timeout.
 */
export function createVersionWaits() {
  const waiting = new Map<string, Set<{ version: number; done: (ok: boolean) => void }>>();
  return {
    /** The view now holds `version` of `id` (or a later one). */
    reached(id: string, version: number) {
      const waiters = waiting.get(id);
      if (!waiters) return;
      for (const w of waiters) if (w.version <= version) w.done(true);
    },
    /** Resolves true once `id` is at `version` or later (`current` is what the view holds now), false at the timeout. */
    until(id: string, version: number, current: number, timeoutMs: number): Promise<boolean> {
      if (current >= version) return Promise.resolve(true);
      return new Promise((resolve) => {
        const waiters = waiting.get(id) ?? new Set();
        waiting.set(id, waiters);
        const waiter = {
          version,
          done: (ok: boolean) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            if (waiters.size === 0) waiting.delete(id);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => waiter.done(false), timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}

export type VersionWaits = ReturnType<typeof createVersionWaits>;
