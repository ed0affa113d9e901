import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { HeldStore } from '../store/held-store.ts';
import type { HeldEntry, UsageEntry } from '../store/records.ts';
import { recordByWriter, type UsageStore } from '../store/usage-store.ts';

/**
 * `billing.usage` on `ingest.submission`: meters `submission.received` (spam is never billed), records a held one
 * in the held ledger instead (billed when released), and publishes the quota view of each organization touched.
 * Idempotent: both ledgers are keyed by submission id and the view's id names its content. A submission of an
 * organization already purged is dropped by the stores.
 */
export function createUsageHandler(deps: { usage: UsageStore; held: HeldStore; quota: Quota }) {
  return async (batch: BusMessage[]) => {
    const entries: { from: BusMessage; entry: UsageEntry }[] = [];
    const held: (HeldEntry & { period: string })[] = [];
    for (const m of batch) {
      const { data } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.spam.isSpam) continue;
      const entry = { id: data.submissionId, orgId: data.orgId, period: billingPeriodOf(data.receivedAt) };
      if (data.held) held.push(entry);
      else entries.push({ from: m, entry });
    }
    if (held.length > 0) await deps.held.hold(held);
    const counts = entries.length > 0 ? await recordByWriter(deps.usage, 'usage', entries) : [];
    await deps.quota.publish([...counts, ...held]);
  };
}
