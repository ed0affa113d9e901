import type { BusMessage } from '@formgate/bus';
import { decodeEvent, encodeEvent, type SubmissionReceived, Topics } from '@formgate/contracts';
import { type ErasureDeps, eraseSubmission } from './erase-submission.ts';
import { planAndAttempt } from './plan-and-attempt.ts';
import { webhookDeliveriesFor } from './plan-webhook-deliveries.ts';
import { createSubmissionReceivedHandler } from './submission-received.handler.ts';

/**
 * A released submission (issue 13), or one released from spam (issue 14: marked not spam, carrying the
 * submission), as the `submission.received` it would have been had it been neither held nor spam: same submission,
 * so the same delivery ids, hence a redelivered release plans nothing new.
 */
function asReceived(m: BusMessage, event: { id: string; occurredAt: string }, data: SubmissionReceived['data']) {
  const value = encodeEvent(Topics.ingestSubmission, {
    id: event.id,
    type: 'submission.received',
    version: 1,
    occurredAt: event.occurredAt,
    data,
  });
  return { ...m, value };
}

/**
 * `forms.submission` → a release, or a release from spam, is notified as a received submission that is not held
 * (`createSubmissionReceivedHandler`); a deletion is sent to the endpoints subscribed to `submission.deleted`, then
 * the copy is forgotten (the delivery log stays); an erasure (a deletion with `erasure`) or an expiry (`expired`, the retention) is `eraseSubmission`; a mark
 * as spam (not spam before) is sent to those subscribed to `submission.spam`, when the copy is here (kept when the
 * form had such an endpoint at its receipt). Idempotent: the deliveries' ids derive from the submission (deletion,
 * erasure) or the event (spam mark).
 *
 * Every deletion (erasure, expiry or through the API) first leaves a tombstone (`GoneSubmissions.markGone`), so the
 * planning consumers of `ingest.submission`, when behind, skip the submission's `submission.received` that reaches
 * them after it. A release (or release from spam) of a deleted submission is skipped the same way, but it comes
 * before its deletion in this partition, so it is planned as usual and then forgotten with the copy; only a
 * redelivery of both (after a crash), once older than `DELIVERY_TUNING.goneCheckAfterMs`, finds the tombstone and
 * skips the release.
 */
export function createSubmissionChangesHandler(deps: ErasureDeps) {
  const { views } = deps.stores;
  const received = createSubmissionReceivedHandler(deps);
  const handle = async (batch: BusMessage[]) => {
    for (const m of batch) {
      const event = decodeEvent(Topics.formsSubmission, m.value);
      if (event.type === 'submission.released') {
        const { releasedAt: _r, ...data } = event.data;
        await received([asReceived(m, event, data)]);
        continue;
      }
      if (event.type === 'submission.spam-marked' && !event.data.spam && event.data.submission) {
        // Released from spam: notified as received (once: the delivery ids derive from the submission).
        await received([asReceived(m, event, event.data.submission)]);
        continue;
      }
      if (event.type === 'submission.deleted') {
        // Before anything is forgotten: a consumer of `ingest.submission` behind skips the submission from now on.
        const { orgId, submissionId } = event.data;
        await deps.stores.gone.markGone({ orgId, submissionId, goneAt: event.occurredAt });
      }
      if (event.type === 'submission.deleted' && (event.data.erasure !== undefined || event.data.expired)) {
        await eraseSubmission(deps, event, event.data.erasure ?? null);
        continue;
      }
      const { submissionId, formId, orgId, receivedAt } = event.data;
      const form = await views.getForm({ orgId }, formId);
      const deleted = event.type === 'submission.deleted';
      const spamMark = event.type !== 'submission.deleted' && event.data.spam && !event.data.wasSpam;
      if (form && (deleted || (spamMark && (await views.getSubmission({ orgId }, submissionId))))) {
        const type = deleted ? 'submission.deleted' : 'submission.spam';
        const wanted = webhookDeliveriesFor(deps, {
          form,
          submissionId,
          cause: deleted ? submissionId : event.id,
          event: { type, occurredAt: event.occurredAt, receivedAt },
          endpoints: await deps.endpoints.listByForm({ orgId }, formId),
        });
        if (wanted.length > 0) await planAndAttempt(deps, orgId, submissionId, wanted);
      }
      if (deleted) await views.deleteSubmission(submissionId);
    }
  };
  /** Waits for the first attempts of released submissions handed on. */
  return Object.assign(handle, { drain: received.drain });
}
