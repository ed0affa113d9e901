import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { PrivacyKeys } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import { addressesOf } from '../privacy/addresses.ts';
import type { FormRepository } from '../store/form-repository.ts';
import type { SubmissionRecord } from '../store/records.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';
import { deleteBlobs, purgeDeletedForm } from '../use-cases/delete-form.ts';

/**
 * Projects `submission.received` into the submissions read model; idempotent by submission id. A submission for a
 * form this service no longer has (deleted, or purged with its organization, while the event was in flight) is
 * dropped with its files: forms are created here first, so an unknown form is always a gone one. A form deleted
 * while its batch was being stored is purged again afterwards (the deletion deletes the form first, then its
 * submissions, so whatever this batch stored after that purge is found here).
 */
export function createSubmissionReceivedHandler(deps: {
  forms: FormRepository;
  submissions: Pick<SubmissionReadModel, 'insertSubmissions'>;
  blobs: BlobStore;
  /** The keys of the addresses each submission holds are stored with it (erasure by submitter, issue 31). */
  privacy: Pick<PrivacyKeys, 'addressKey'>;
  /** Files are scanned for malware (issue 33): each is stored `pending` until `forms.file-scan` judged it. */
  scanFiles?: boolean;
}) {
  const { forms, submissions, blobs, privacy } = deps;
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
        // Kept for the release of a held submission, or of spam marked not spam (issue 14): notifications read them.
        ...(data.held || data.spam.isSpam ? { meta: data.meta } : {}),
        ...(data.origin !== undefined ? { origin: data.origin } : {}),
        ...(data.referer !== undefined ? { referer: data.referer } : {}),
        addressKeys: addressesOf(data.fields, data.meta).map(privacy.addressKey),
        ...(deps.scanFiles && data.files.length > 0
          ? { fileScans: Object.fromEntries(data.files.map((f) => [f.blobKey, { status: 'pending' as const }])) }
          : {}),
      };
    });
    const formsOf = new Map(records.map((r) => [r.formId, r.orgId]));
    const live = new Set<string>();
    for (const [formId, orgId] of formsOf) if (await forms.getForm({ orgId }, formId)) live.add(formId);
    await deleteBlobs(
      blobs,
      records.filter((r) => !live.has(r.formId)).flatMap((r) => r.files.map((f) => f.blobKey)),
    );
    await submissions.insertSubmissions(records.filter((r) => live.has(r.formId)));
    for (const formId of live) {
      const orgId = formsOf.get(formId) as string;
      if (!(await forms.getForm({ orgId }, formId))) await purgeDeletedForm({ forms, blobs }, formId);
    }
  };
}
