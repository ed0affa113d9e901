import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { BlockedCounts } from '../store/blocked-counts.ts';

/**
 * `forms.blocked-counts` on `ingest.abuse`: counts the requests each report says a spam layer refused (`blocked`)
 * per form and UTC day (issue 14). Idempotent by report id (the event id): a redelivered report counts nothing
 * more. The topic has one partition, so this consumer is the one writer of the counts. The reports' rate-limit and
 * ALTCHA parts are ingest's business.
 */
export function createBlockedCountsHandler(blocked: BlockedCounts) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.ingestAbuse, m.value);
      if (event.data.blocked.length > 0) await blocked.recordBlocked(event.id, event.data.blocked);
    }
  };
}
