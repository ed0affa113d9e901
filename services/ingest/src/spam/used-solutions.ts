/**
 * Replay protection for one-time proofs (ALTCHA solutions): a proof is accepted once. In distributed mode the
 * ingest instances tell each other what they accepted (`ingest.abuse`), so a replay to another instance is caught
 * within the exchange's interval (docs/ingest.md states the bound).
 */
export interface UsedSolutions {
  /** Records `hash` as used until `expiresAt`; false when it was already used (here or, as reported, elsewhere). */
  claim(hash: string, expiresAt: Date): boolean;
}

/** This instance's memory of used proofs, forgotten once expired. */
export function createLocalUsedSolutions(now: () => Date = () => new Date()): UsedSolutions & {
  /** A proof another instance reported as used. */
  remember(hash: string, expiresAt: Date): void;
  /** Proofs claimed here since the last call (for `ingest.abuse`, `abuse/abuse-exchange.ts`), then forgotten. */
  drainClaimed(): { hash: string; expiresAt: Date }[];
} {
  const used = new Map<string, number>();
  let claimed: { hash: string; expiresAt: Date }[] = [];
  const sweep = () => {
    const t = now().getTime();
    for (const [hash, until] of used) if (until <= t) used.delete(hash);
  };
  return {
    claim(hash, expiresAt) {
      if (used.size > 10_000) sweep();
      const until = used.get(hash);
      if (until !== undefined && until > now().getTime()) return false;
      used.set(hash, expiresAt.getTime());
      // Bounded in case nothing drains it (the exchange drains it every second).
      if (claimed.length < 100_000) claimed.push({ hash, expiresAt });
      return true;
    },
    remember(hash, expiresAt) {
      used.set(hash, Math.max(used.get(hash) ?? 0, expiresAt.getTime()));
    },
    drainClaimed() {
      const out = claimed;
      claimed = [];
      return out;
    },
  };
}
