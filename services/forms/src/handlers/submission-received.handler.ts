import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { FormsStore, SubmissionRecord } from '../store/forms-store.ts';

/** Projects `submission.received` into the submissions read model; idempotent by submission id. */
export function createSubmissionReceivedHandler(store: FormsStore) {
  return async (batch: BusMessage[]) => {
    const records: SubmissionRecord[] = batch.map((m) => {
      const { data } = decodeEvent(Topics.ingestSubmission, m.value);
      return {
        id: data.submissionId,
        formId: data.formId,
        orgId: data.orgId,
        createdAt: data.receivedAt,
        fields: data.fields,
        files: data.files,
        spam: data.spam,
        held: data.held,
      };
    });
    await store.insertSubmissions(records);
  };
}
