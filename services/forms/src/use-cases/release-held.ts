import { billingPeriodOf, type QuotaUpdated } from '@formgate/contracts';
import type { Clock, Ids } from '@formgate/kit';
import type { HeldSubmissions } from '../store/held-submissions.ts';
import type { ReleaseLedger } from '../store/records.ts';
import type { SubmissionChanges } from '../store/submission-changes.ts';

/** Releases made per store read and ledger write: after a crash, at most this many beyond the allowance. */
export const RELEASE_BATCH = 50;

export type ReleaseDeps = { held: HeldSubmissions; changes: SubmissionChanges; clock: Clock; ids: Ids };

/**
 * Plans the releases a quota view allows: billing's `submissionsUsed` may not count yet what was released before,
 * so the ledger's `level` (what the releases planned so far fill the period up to) stands for it until billing's
 * count passes it. Returns the ledger with the new releases owed.
 */
export function planRelease(ledger: ReleaseLedger | null, quota: QuotaUpdated['data'], held: number): ReleaseLedger {
  const current =
    ledger && ledger.period === quota.period
      ? { ...ledger }
      : { orgId: quota.orgId, period: quota.period, level: 0, owed: 0, done: 0 };
  if (quota.overQuota) return current;
  const pending = current.owed - current.done;
  const fill = Math.max(quota.submissionsUsed, current.level);
  const add = Math.max(0, Math.min(quota.submissionsMax - fill, held - pending));
  if (add > 0) {
    current.level = fill + add;
    current.owed += add;
  }
  return current;
}

/**
 * Releases an organization's held submissions as far as its quota view allows (issue 13, ADR 35): only a
 * view of the current period counts; the oldest held first, in batches of `RELEASE_BATCH`, each release one
 * `changeSubmission(…, 'release')` (the submission, its counters and its `submission.released` in the outbox as one
 * step). Returns how many it released. Runs for one organization at a time (the consumer of its partition).
 */
export async function releaseHeld(deps: ReleaseDeps, quota: QuotaUpdated['data']): Promise<number> {
  if (quota.period !== billingPeriodOf(deps.clock.now())) return 0;
  const scope = { orgId: quota.orgId };
  const stored = await deps.held.getReleaseLedger(scope);
  if (stored && stored.period > quota.period) return 0;
  const held = await deps.held.countHeld(scope);
  if (held === 0 && (!stored || stored.owed === stored.done)) return 0;
  const ledger = planRelease(stored, quota, held);
  if (JSON.stringify(ledger) !== JSON.stringify(stored)) await deps.held.saveReleaseLedger(ledger);
  let released = 0;
  while (ledger.owed > ledger.done) {
    const batch = await deps.held.listOldestHeld(scope, Math.min(RELEASE_BATCH, ledger.owed - ledger.done));
    let changed = 0;
    for (const s of batch) {
      const occurredAt = deps.clock.now().toISOString();
      const result = await deps.changes.changeSubmission(scope, s.formId, s.id, 'release', {
        id: deps.ids.next(),
        occurredAt,
      });
      if (result === 'changed') changed += 1;
    }
    // Nothing (left) to release: what was owed and not found is forgiven, or it would release later arrivals.
    ledger.done = batch.length === 0 || changed === 0 ? ledger.owed : ledger.done + changed;
    await deps.held.saveReleaseLedger(ledger);
    released += changed;
  }
  return released;
}
