import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { CountedChange } from '../store/records.ts';
import type { SubmissionChanges } from '../store/submission-changes.ts';

/**
 * `forms.submission-counts` on `forms.submission`: counts each published change of a submission into its form's
 * counters, where the store does not count it with the change already (ADR 0020). Idempotent by event id;
 * the topic is keyed by form id, so this consumer is the one writer of a form's change counters.
 */
export function createSubmissionChangedHandler(store: Pick<SubmissionChanges, 'countSubmissionChanges'>) {
  return async (batch: BusMessage[]) => {
    const changes: CountedChange[] = [];
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      if (event.type === 'submission.released') {
        // A release makes a held submission count as received (by its verdict, on its day).
        const { formId, orgId, receivedAt, spam } = event.data;
        changes.push({ id: event.id, formId, orgId, wasSpam: spam.isSpam, receivedAt, action: 'release' });
        continue;
      }
      const { formId, orgId, wasSpam, receivedAt } = event.data;
      if (event.type === 'submission.deleted') {
        const erased = event.data.erasure !== undefined;
        const wasHeld = event.data.wasHeld === true;
        changes.push({
          id: event.id,
          formId,
          orgId,
          wasSpam,
          receivedAt,
          action: erased ? 'erase' : 'delete',
          wasHeld,
        });
        continue;
      }
      const action = event.data.spam ? ('spam' as const) : ('not-spam' as const);
      changes.push({ id: event.id, formId, orgId, wasSpam, receivedAt, action });
    }
    await store.countSubmissionChanges(changes);
  };
}
