import type { BusMessage } from '@formgate/bus';
import { billingPeriodOf, decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { HeldStore } from '../store/held-store.ts';
import type { HeldEntry, UsageEntry } from '../store/records.ts';
import { recordByWriter, type UsageStore } from '../store/usage-store.ts';

/**
 * `billing.releases` on `forms.submission`: a `submission.released` leaves the held ledger and is metered in the
 * period of its release; a `submission.deleted` leaves the held ledger (it waited for nothing). Idempotent by
 * submission id: the usage ledger counts a submission once, whether released twice or received un-held before.
 * A not-spam mark that carries the submission (released from spam, issue 14, ADR 42) is metered in the period of
 * the mark (the event's `occurredAt`), once by submission id too; other spam marks change nothing here.
 */
export function createSubmissionChangedHandler(deps: { usage: UsageStore; held: HeldStore; quota: Quota }) {
  return async (batch: BusMessage[]) => {
    const released: UsageEntry[] = [];
    const settled: HeldEntry[] = [];
    const metered: { from: BusMessage; entry: UsageEntry }[] = [];
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      const { submissionId: id, orgId } = event.data;
      if (event.type === 'submission.released') {
        const entry = { id, orgId, period: billingPeriodOf(event.data.releasedAt) };
        released.push(entry);
        metered.push({ from: m, entry });
      } else if (event.type === 'submission.deleted') {
        settled.push({ id, orgId });
      } else if (!event.data.spam && event.data.submission) {
        metered.push({ from: m, entry: { id, orgId, period: billingPeriodOf(event.occurredAt) } });
      }
    }
    if (metered.length === 0 && settled.length === 0) return;
    // Counted before it stops being held: a failure in between leaves it both, which the retry settles.
    const counts = metered.length > 0 ? await recordByWriter(deps.usage, 'releases', metered) : [];
    if (released.length > 0 || settled.length > 0) await deps.held.release([...released, ...settled]);
    await deps.quota.publish([...counts, ...settled]);
  };
}
