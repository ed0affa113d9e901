import type { BusMessage } from '@formgate/bus';
import { decodeEvent, Topics } from '@formgate/contracts';
import type { Clock } from '@formgate/kit';
import type { BlobStore } from '@formgate/store';
import type { FormRepository } from '../store/form-repository.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';
import { SubmissionNotYetStoredError, stillWaitingFor } from './not-yet-stored.ts';

/**
 * `forms.content-drop` on `notifications.delivery`: on `submission.settled` (notifications are done with a
 * submission of a no-store form, issue 31), the submission keeps only its metadata. Its files' blobs are deleted
 * first, then its content dropped (`SubmissionReadModel.dropContent`): a crash between the two leaves the files
 * listed, and the redelivered event deletes them again (a missing blob is no error), then drops. A form that
 * stores content again by then keeps it. The topic's delivery outcomes are billing's: skipped.
 *
 * The event can come before this service stored the submission: notifications and forms read `ingest.submission`
 * each at their own pace, and a loaded forms instance lags. Skipping it would keep the content for good, so the
 * batch is retried (`SubmissionNotYetStoredError`) until the submission is there, for up to
 * `STORED_WAIT_MS` after it was settled; past that (a submission deleted meanwhile leaves none to read), skipped.
 */
export function createSubmissionSettledHandler(deps: {
  forms: Pick<FormRepository, 'getForm'>;
  submissions: Pick<SubmissionReadModel, 'getSubmission' | 'dropContent'>;
  blobs: Pick<BlobStore, 'delete'>;
  clock: Clock;
}) {
  return async (batch: BusMessage[]) => {
    for (const m of batch) {
      // Nearly every record is a delivery outcome: skipped without decoding it.
      if (!m.value.includes('"submission.settled"')) continue;
      const event = decodeEvent(Topics.notificationsDelivery, m.value);
      if (event.type !== 'submission.settled') continue;
      const { orgId, formId, submissionId } = event.data;
      const scope = { orgId };
      const form = await deps.forms.getForm(scope, formId);
      if (!form || form.settings.storeContent) continue;
      const submission = await deps.submissions.getSubmission(scope, formId, submissionId);
      if (!submission) {
        if (stillWaitingFor(event.data.settledAt, deps.clock.now()))
          throw new SubmissionNotYetStoredError(submissionId);
        continue;
      }
      if (submission.contentDropped) continue;
      for (const file of submission.files) await deps.blobs.delete(file.blobKey);
      await deps.submissions.dropContent(scope, formId, submissionId);
    }
  };
}
