import { AppError, type NotificationEmailDto } from '@formgate/contracts';
import type { Clock, Identity, Ids, Logger } from '@formgate/kit';
import type { Mailer, MailMessage } from '@formgate/mail';
import type { MailPolicy, Recipient, RecipientStore } from '../store/index.ts';
import { VERIFICATION_TTL_SECONDS, type VerificationTokens } from './verification-token.ts';

/** The most notification addresses one organization may have. */
export const MAX_NOTIFICATION_EMAILS = 50;

/** Verification mails to one address of an organization: one a minute at most, five a day. */
export const VERIFICATION_MAIL_POLICY: MailPolicy = {
  minIntervalMs: 60_000,
  maxPerWindow: 5,
  windowMs: 24 * 60 * 60_000,
};

/** Builds the verification mail (the template lives with the other email templates). */
export type ComposeVerification = (input: {
  email: string;
  link: string;
  /** When the link stops working (ISO 8601). */
  expiresAt: string;
  orgName: string;
}) => MailMessage | Promise<MailMessage>;

export interface AddNotificationEmailDeps {
  store: RecipientStore;
  mailer: Mailer;
  composeVerification: ComposeVerification;
  tokens: VerificationTokens;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** The dashboard's origin, `https://formgate.example`: the verification link points there. */
  publicUrl: string;
  limit: number;
  mailPolicy: MailPolicy;
}

export const toNotificationEmailDto = (r: Recipient): NotificationEmailDto => ({
  id: r.id,
  email: r.email,
  verified: r.verified,
  createdAt: r.createdAt.toISOString(),
});

/**
 * Adds `email` to the caller's organization, or finds it there. The caller's own sign-in address (a session, not an
 * API key) is verified at once without a mail; any other unverified address gets a verification link, within
 * `mailPolicy`. A verified address is a conflict. `created` tells a new address from a known one.
 */
export async function addNotificationEmail(
  deps: AddNotificationEmailDeps,
  identity: Identity,
  email: string,
): Promise<{ created: boolean; item: NotificationEmailDto }> {
  const scope = { orgId: identity.orgId };
  const address = email.toLowerCase();
  const now = deps.clock.now();
  const isOwn = identity.via === 'session' && identity.email?.toLowerCase() === address;
  const added = await deps.store.add(
    scope,
    { id: deps.ids.next(), email: address, createdAt: now, verifiedAt: isOwn ? now : null },
    { limit: deps.limit },
  );
  if (added.outcome === 'limit-reached') {
    throw new AppError(
      'NOTIFICATIONS_EMAIL_LIMIT_REACHED',
      `An organization can have at most ${deps.limit} notification emails; remove one first`,
    );
  }
  let recipient = added.recipient;
  const created = added.outcome === 'created';
  if (!created && recipient.verified) throw new AppError('NOTIFICATIONS_EMAIL_ALREADY_VERIFIED');
  if (!recipient.verified && isOwn) {
    recipient = (await deps.store.markVerified(scope, { id: recipient.id, email: address, at: now })) ?? recipient;
  }
  if (!recipient.verified) await sendVerification(deps, recipient, now);
  return { created, item: toNotificationEmailDto(recipient) };
}

async function sendVerification(deps: AddNotificationEmailDeps, recipient: Recipient, now: Date) {
  const scope = { orgId: recipient.orgId };
  const claim = await deps.store.claimVerificationMail(scope, recipient.email, now, deps.mailPolicy);
  if (!claim.allowed) {
    const minutes = Math.max(1, Math.ceil((claim.retryAt.getTime() - now.getTime()) / 60_000));
    throw new AppError(
      'NOTIFICATIONS_VERIFICATION_RECENTLY_SENT',
      `A verification email was sent to this address recently; try again in ${minutes} minute${minutes > 1 ? 's' : ''}`,
    );
  }
  const token = deps.tokens.sign(
    { orgId: recipient.orgId, addressId: recipient.id, email: recipient.email },
    now.getTime(),
  );
  const link = `${deps.publicUrl}/api/v1/notification-emails/verify?token=${encodeURIComponent(token)}`;
  const orgName = (await deps.store.getOrgName(recipient.orgId)) ?? 'your organization';
  const expiresAt = new Date(now.getTime() + VERIFICATION_TTL_SECONDS * 1000).toISOString();
  try {
    await deps.mailer.send({
      ...(await deps.composeVerification({ email: recipient.email, link, expiresAt, orgName })),
      to: recipient.email,
    });
  } catch (err) {
    deps.logger.warn({ recipientId: recipient.id, err: (err as Error).name }, 'verification mail not sent');
    throw new AppError('NOTIFICATIONS_MAIL_UNAVAILABLE', undefined, { cause: err });
  }
  deps.logger.info({ recipientId: recipient.id, orgId: recipient.orgId }, 'verification mail sent');
}
