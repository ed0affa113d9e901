import { AppError, type PermissionRequest } from '@formgate/contracts';
import { API_ROUTES } from '@formgate/contracts/routes';
import {
  type Clock,
  type IdentityVerifier,
  type Ids,
  identityOf,
  type Logger,
  mountRoute,
  requireIdentity,
  requireJson,
  requirePermission,
  type SigningSecret,
} from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import express, { Router } from 'express';
import type { MailPolicy, RecipientStore } from '../store/index.ts';
import {
  addNotificationEmail,
  type ComposeVerification,
  MAX_NOTIFICATION_EMAILS,
  toNotificationEmailDto,
  VERIFICATION_MAIL_POLICY,
} from './add-notification-email.ts';
import { createVerificationTokens } from './verification-token.ts';

export interface RecipientRoutesDeps {
  store: RecipientStore;
  mailer: Mailer;
  composeVerification: ComposeVerification;
  clock: Clock;
  ids: Ids;
  identity: IdentityVerifier;
  logger: Logger;
  /** The dashboard's origin (`PUBLIC_URL`), without a trailing slash. */
  publicUrl: string;
  /** Signs verification links; at least 32 characters. */
  linkSecret: SigningSecret;
  /** Defaults: `MAX_NOTIFICATION_EMAILS`, `VERIFICATION_MAIL_POLICY`. */
  limit?: number;
  mailPolicy?: MailPolicy;
}

const BASE = '/api/v1/notification-emails';
const MANAGE: PermissionRequest = { organization: ['update'] };

/**
 * `/api/v1/notification-emails`: list (any member), add and remove (owner, admin), and the public verification link.
 * Mount it before the app's `errorHandler`.
 */
export function createRecipientRoutes(deps: RecipientRoutesDeps): Router {
  const tokens = createVerificationTokens(deps.linkSecret);
  const publicUrl = deps.publicUrl.replace(/\/+$/, '');
  const addDeps = {
    ...deps,
    tokens,
    publicUrl,
    limit: deps.limit ?? MAX_NOTIFICATION_EMAILS,
    mailPolicy: deps.mailPolicy ?? VERIFICATION_MAIL_POLICY,
  };
  const router = Router();

  // Public: the signed token is the credential (the link is opened from a mailbox, maybe signed out).
  mountRoute(router, API_ROUTES.verifyNotificationEmail, async (req, res) => {
    const invalid = `${publicUrl}/dashboard/emails?verification=invalid`;
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const now = deps.clock.now();
    const grant = tokens.verify(token, now.getTime());
    const verified = grant
      ? await deps.store.markVerified({ orgId: grant.orgId }, { id: grant.addressId, email: grant.email, at: now })
      : null;
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    if (!verified) return void res.redirect(303, invalid);
    deps.logger.info({ recipientId: verified.id, orgId: verified.orgId }, 'notification email verified');
    res.redirect(303, `${publicUrl}/dashboard/emails/verification-success/${encodeURIComponent(verified.email)}`);
  });

  router.use(BASE, requireIdentity(deps.identity));

  mountRoute(router, API_ROUTES.listNotificationEmails, async (req, res) => {
    const items = await deps.store.list({ orgId: identityOf(req).orgId });
    res.json({ data: items.map(toNotificationEmailDto) });
  });

  mountRoute(router, API_ROUTES.addNotificationEmail, requireJson, express.json({ limit: '4kb' }), async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, MANAGE);
    const { email } = API_ROUTES.addNotificationEmail.request.body.parse(req.body);
    const { created, item } = await addNotificationEmail(addDeps, identity, email);
    res.status(created ? 201 : 200).json(item);
  });

  mountRoute(router, API_ROUTES.deleteNotificationEmail, async (req, res) => {
    const identity = identityOf(req);
    requirePermission(identity, MANAGE);
    const removed = await deps.store.remove({ orgId: identity.orgId }, String(req.params.emailId));
    if (!removed) throw new AppError('NOTIFICATIONS_EMAIL_NOT_FOUND');
    res.status(204).end();
  });

  return router;
}
