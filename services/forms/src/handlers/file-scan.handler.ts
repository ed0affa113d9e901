import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Clock, Logger } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { FileScanner } from '../files/file-scanner.ts';
import type { FormRepository } from '../store/form-repository.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';
import { SubmissionNotYetStoredError, stillWaitingFor } from './not-yet-stored.ts';

/**
 * `forms.file-scan` on `ingest.submission` (issue 33): each file stored `pending` is read from the blob store
 * through the malware scanner, and its verdict recorded on the submission (`recordFileScan`). Until then the file is
 * not downloadable; an `infected` or `failed` one never is (quarantined: kept, never served, gone with its
 * submission).
 *
 * - A scanner that cannot judge now (`ScannerUnavailableError`, also when the blob store fails mid-read) fails the
 *   batch, which the bus retries without limit: an outage delays verdicts, it never drops or passes a file.
 * - Idempotent: only `pending` files are scanned, so a redelivered batch scans what it had not recorded yet.
 * - The event can come before `forms.submission-received` stored the submission: retried
 *   (`SubmissionNotYetStoredError`) for up to `STORED_WAIT_MS`; a form or blob that is gone has nothing to scan.
 */
export function createFileScanHandler(deps: {
  forms: Pick<FormRepository, 'getForm'>;
  submissions: Pick<SubmissionReadModel, 'getSubmission' | 'recordFileScan'>;
  blobs: Pick<BlobStore, 'get'>;
  scanner: FileScanner;
  clock: Clock;
  logger: Logger;
}) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      // Most submissions carry no file: skipped without decoding them.
      if (!m.value.includes('"blobKey"')) continue;
      const { data } = decodeEvent(Topics.ingestSubmission, m.value);
      if (data.files.length === 0) continue;
      const scope = { orgId: data.orgId };
      const submission = await deps.submissions.getSubmission(scope, data.formId, data.submissionId);
      if (!submission) {
        if (!(await deps.forms.getForm(scope, data.formId))) continue;
        if (stillWaitingFor(data.receivedAt, deps.clock.now()))
          throw new SubmissionNotYetStoredError(data.submissionId);
        continue;
      }
      for (const file of submission.files) {
        if (submission.fileScans?.[file.blobKey]?.status !== 'pending') continue;
        const blob = await deps.blobs.get(file.blobKey);
        if (!blob) continue; // deleted meanwhile, with its submission
        const verdict = await deps.scanner.scan(blob.stream, blob.size);
        const scannedAt = deps.clock.now().toISOString();
        const scan =
          verdict.status === 'clean'
            ? { status: verdict.status, scannedAt }
            : {
                status: verdict.status,
                detail: verdict.status === 'infected' ? verdict.signature : verdict.reason,
                scannedAt,
              };
        await deps.submissions.recordFileScan(scope, data.formId, data.submissionId, file.blobKey, scan);
        if (verdict.status !== 'clean') {
          // The scanner's own words about the file; never the file's name or content.
          deps.logger.warn(
            { formId: data.formId, submissionId: data.submissionId, scan: verdict.status, detail: scan.detail },
            'file quarantined by the malware scan',
          );
        }
      }
    }
  };
}
