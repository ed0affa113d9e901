import type { SubmissionDeleted } from '@formgate/contracts';
import type { KeptMail } from '../email/kept-mail.ts';
import { forgetContent } from './forget-content.ts';
import { planAndAttempt } from './plan-and-attempt.ts';
import { erasureDeliveriesFor } from './plan-webhook-deliveries.ts';
import type { HandlerDeps } from './submission-received.handler.ts';

export type ErasureDeps = HandlerDeps & {
  /** The kept copies of sent mails (embedded mode's mail files); none kept without. */
  keptMail?: KeptMail | undefined;
};

/**
 * An erasure (`submission.deleted` with `erasure`): everything notifications keeps of the submission's content goes
 * (the delivery log's addresses and response texts, the copy, the kept mails of its emails), then `submission.erased`
 * is sent to the form's endpoints that were sent the submission (`erasureDeliveriesFor`), not to those merely
 * subscribed. Those hold no content, and the redaction leaves them out (their responses tell why they fail), so a
 * retry of theirs or a redelivered erasure changes nothing of them. Idempotent: a redelivered
 * erasure redacts nothing more, forgets nothing more and plans the same deliveries; a submission never seen has
 * nothing to redact or to notify. A submission the retention deleted (`expired`, no erasure id) is forgotten the
 * same way, and no one is told.
 */
export async function eraseSubmission(deps: ErasureDeps, event: SubmissionDeleted, erasureId: string | null) {
  const { submissionId, formId, orgId, receivedAt } = event.data;
  const { log, views } = deps.stores;
  const sent = await log.listBySubmission({ orgId }, submissionId);
  await forgetContent(deps, { orgId }, submissionId, sent);

  if (erasureId === null) return;
  const form = await views.getForm({ orgId }, formId);
  if (!form) return;
  const wanted = erasureDeliveriesFor(deps, {
    form,
    submissionId,
    event: { type: 'submission.erased', occurredAt: event.occurredAt, receivedAt, erasureId },
    sent,
    endpoints: await deps.endpoints.listByForm({ orgId }, formId),
  });
  if (wanted.length > 0) await planAndAttempt(deps, orgId, submissionId, wanted);
}
