import type { KeptMail } from '../email/kept-mail.ts';
import type { Delivery, DeliveryLog, NotificationViews, OrgScope } from '../store/index.ts';

export interface ForgetContentDeps {
  stores: { log: Pick<DeliveryLog, 'redactSubmission'>; views: Pick<NotificationViews, 'deleteSubmission'> };
  /** The kept copies of sent mails (embedded mode's mail files); none kept without. */
  keptMail?: KeptMail | undefined;
}

/**
 * Drops everything notifications keep of a submission's content, and tells no one: the addresses and response texts
 * of its deliveries (`redactSubmission`), its copy, and the kept mails of `sent`, its deliveries as read before
 * (their message ids). The outcomes stay. Idempotent: called again, it finds nothing more to drop.
 */
export async function forgetContent(deps: ForgetContentDeps, scope: OrgScope, submissionId: string, sent: Delivery[]) {
  await deps.stores.log.redactSubmission(scope, submissionId);
  await deps.stores.views.deleteSubmission(submissionId);
  const mails = sent.flatMap((d) => (d.channel === 'email' && d.messageId ? [d.messageId] : []));
  if (deps.keptMail && mails.length > 0) await deps.keptMail.forget(mails);
}
