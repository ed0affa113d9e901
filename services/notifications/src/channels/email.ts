import { AppError, type Logger } from '@formgate/kit';
import { type Mailer, MailSendError } from '@formgate/mail';
import { type AttemptContext, type DeliveryChannel, permanentFailure, type SendResult } from '../deliveries/channel.ts';
import type { EmailQuota } from '../deliveries/email-quota.ts';
import { RETRY_SCHEDULES } from '../deliveries/retry-schedule.ts';
import type { Composer } from '../email/composer.ts';
import type { Delivery, NotificationViews, VerifiedRecipients } from '../store/index.ts';

export interface EmailChannelDeps {
  views: NotificationViews;
  mailer: Mailer;
  compose: Composer;
  recipients: VerifiedRecipients;
  /** The organizations' emails quota (`billing.quota`): an email over it is deferred. Without it, none is. */
  quota?: EmailQuota;
  publicUrl: string;
  logger: Logger;
}

/** A short, header-free description of why a send failed: the SMTP reply code and text, never message content. */
function responseOf(err: unknown): { code: string; text: string } {
  const cause = (err instanceof MailSendError ? err.cause : err) as
    | { responseCode?: number; code?: string; response?: string; message?: string }
    | undefined;
  const code = cause?.responseCode !== undefined ? String(cause.responseCode) : (cause?.code ?? 'ERROR');
  const text = (cause?.response ?? (err as Error)?.message ?? 'unknown error').replace(/\s+/g, ' ').slice(0, 200);
  return { code, text };
}

/**
 * The email channel: composes the notification or autoresponse of one delivery from the form view and the
 * submission's copy, and sends it through the mailer (an SMTP reply is the outcome). Emails pass the organization's
 * emails quota first (`admit`): over it, they are deferred until the releaser finds room.
 */
export function createEmailChannel(deps: EmailChannelDeps): DeliveryChannel {
  const { views, logger } = deps;

  async function send(delivery: Delivery, known: AttemptContext): Promise<SendResult> {
    const scope = { orgId: delivery.orgId };
    const [form, submission] = await Promise.all([
      known.form ?? views.getForm(scope, delivery.formId),
      known.submission ?? views.getSubmission(scope, delivery.submissionId),
    ]);
    if (!submission) return permanentFailure('GONE', 'the submission was deleted');
    if (!form) return permanentFailure('GONE', 'the form was deleted');
    const input = {
      form,
      submission,
      to: delivery.target,
      publicUrl: deps.publicUrl,
      ...(delivery.resendOf ? { resendId: delivery.id } : {}),
    };
    let message: Awaited<ReturnType<Composer['notification']>>;
    try {
      message = await (delivery.purpose === 'autoresponse'
        ? deps.compose.autoresponse(input)
        : deps.compose.notification(input));
    } catch (err) {
      logger.error({ err: { name: (err as Error).name }, deliveryId: delivery.id }, 'composing a mail failed');
      return permanentFailure('COMPOSE_FAILED', 'the mail could not be composed');
    }
    try {
      const { messageId } = await deps.mailer.send(message);
      return { ok: true, retryable: false, response: { code: '250', text: 'accepted' }, messageId };
    } catch (err) {
      const retryable = err instanceof MailSendError ? err.retryable : true;
      return { ok: false, retryable, response: responseOf(err), messageId: null };
    }
  }

  /** A notification is resent only to an address still verified; an autoresponse to its submitter. */
  async function resendOf(original: Delivery) {
    if (original.purpose === 'notification') {
      const verified = (await deps.recipients.listVerified(original.orgId)).map((a) => a.trim().toLowerCase());
      if (!verified.includes(original.target)) throw new AppError('NOTIFICATIONS_RECIPIENT_NOT_VERIFIED');
    }
    return { purpose: original.purpose, target: original.target, targetId: original.targetId };
  }

  const quota = deps.quota;
  return {
    kind: 'email',
    retrySchedule: RETRY_SCHEDULES.email,
    spanName: 'smtp send',
    send,
    ...(quota ? { admit: (delivery: Delivery, now: Date) => quota.take(delivery.orgId, now) } : {}),
    eventTarget: (d) => d.target,
    shownTarget: (d) => d.target,
    resendOf,
  };
}
