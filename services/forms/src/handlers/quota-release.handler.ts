import type { BusMessage } from '@formgate/bus';
import { decodeEvent, type QuotaUpdated, Topics } from '@formgate/contracts';
import { type ReleaseDeps, releaseHeld } from '../use-cases/release-held.ts';

/**
 * `forms.quota-release` on `billing.quota` (keyed by organization: one consumer per organization at a time):
 * releases held submissions an organization's quota now allows (`use-cases/release-held.ts`). Only each
 * organization's newest view in a batch counts. `onReleased` nudges the outbox relay that publishes
 * `submission.released`. Idempotent: a redelivered view plans no release the ledger has not already made.
 */
export function createQuotaReleaseHandler(deps: ReleaseDeps & { onReleased: () => void }) {
  return async (batch: BusMessage[]) => {
    const newest = new Map<string, QuotaUpdated['data']>();
    for (const m of batch) {
      const { data } = decodeEvent(Topics.billingQuota, m.value);
      newest.set(data.orgId, data);
    }
    let released = 0;
    for (const quota of newest.values()) released += await releaseHeld(deps, quota);
    if (released > 0) deps.onReleased();
  };
}
