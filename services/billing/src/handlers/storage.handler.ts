import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Quota } from '../quota.ts';
import type { FreedSubmission, StoredFiles } from '../store/records.ts';
import type { StorageStore } from '../store/storage-store.ts';

/**
 * The file storage meter (issue 13, ADR 37): three consumers feeding one ledger keyed by submission id, so
 * each is idempotent and their order does not matter (`StorageStore`'s tombstones).
 * - `billing.storage` on `ingest.submission`: a submission's files (`files[].size`), spam and held ones included
 *   (their files are kept all the same);
 * - `billing.storage-deletions` on `forms.submission`: `submission.deleted` frees them;
 * - `billing.storage-forms` on `forms.form`: `form.deleted` (through the API, or an organization's purge) frees the
 *   form's.
 * Each publishes the quota view of the organizations whose storage it changed, measuring it (`fileStorage`): ingest
 * refuses files for an organization whose storage is full.
 */
export function createStorageHandlers(deps: { storage: StorageStore; quota: Pick<Quota, 'publish'> }) {
  const publish = (orgIds: Iterable<string>) =>
    deps.quota.publish(
      [...new Set(orgIds)].map((orgId) => ({ orgId })),
      { storage: true },
    );
  return {
    received: async (batch: BusMessage[]) => {
      const entries: StoredFiles[] = [];
      for (const m of batch) {
        const { data } = decodeEvent(Topics.ingestSubmission, m.value);
        const bytes = data.files.reduce((sum, f) => sum + f.size, 0);
        if (bytes > 0) entries.push({ id: data.submissionId, orgId: data.orgId, formId: data.formId, bytes });
      }
      if (entries.length === 0) return;
      await deps.storage.record(entries);
      await publish(entries.map((e) => e.orgId));
    },
    deleted: async (batch: BusMessage[]) => {
      const freed: FreedSubmission[] = [];
      for (const m of batch) {
        const event = decodeEvent(Topics.formsSubmission, m.value);
        if (event.type === 'submission.deleted') freed.push({ id: event.data.submissionId, orgId: event.data.orgId });
      }
      if (freed.length === 0) return;
      await deps.storage.free(freed);
      await publish(freed.map((f) => f.orgId));
    },
    formDeleted: async (batch: BusMessage[]) => {
      for (const m of batch) {
        const event = decodeEvent(Topics.formsForm, m.value);
        if (event.type !== 'form.deleted') continue;
        await deps.storage.freeForm({ orgId: event.data.orgId }, event.data.formId);
        await publish([event.data.orgId]);
      }
    },
  };
}
