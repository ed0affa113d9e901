import { createReadiness } from './readiness.ts';

/**
 * Whether the storage this process depends on answers right now, by a real round trip to each store (for MongoDB a
 * write that reaches the storage behind the server — a FerretDB whose PostgreSQL is down still answers `ping`;
 * `probeStorage` in `@formgate/store/mongo`). One instance per process, shared by its consumers (a record that
 * fails for an unknown reason is never dead-lettered while this says unhealthy), its HTTP error handler (an unknown
 * error becomes 503 + Retry-After, never 500) and its `/readyz`.
 */
export interface StoreHealth {
  /** Adds a store's probe: resolves when the store answered, rejects (or throws) when it did not. */
  register(name: string, probe: () => Promise<void> | void): void;
  /**
   * True when every registered probe passed within the timeout (true with none registered). The answer is cached
   * briefly, unless `fresh`: a round of probes started now (one in flight is still shared).
   */
  healthy(options?: { fresh?: boolean }): Promise<boolean>;
}

export interface StoreHealthOptions {
  /** How long one probe may take before the store counts as down (default 2 s). */
  timeoutMs?: number;
  /** How long an answer is reused, so a burst of failures costs one round of probes (default 1 s). */
  cacheMs?: number;
  /** Called when a store stops answering (with the error) or answers again: log it there. */
  onChange?: (name: string, ok: boolean, err?: unknown) => void;
}

/** A `StoreHealth` over named probes, bounded and cached like readiness checks (it is one, of its own). */
export function createStoreHealth(opts: StoreHealthOptions = {}): StoreHealth {
  const probes = createReadiness(opts);
  return {
    register: (name, probe) => probes.register(name, probe),
    healthy: async (options) => (await probes.report(options)).ready,
  };
}
