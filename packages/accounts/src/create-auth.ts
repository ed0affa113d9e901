import { apiKey } from '@better-auth/api-key';
import { passkey } from '@better-auth/passkey';
import { accessControl, authorize, ORG_ROLES, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@formgate/contracts';
import type { Logger } from '@formgate/kit';
import type { Mailer } from '@formgate/mail';
import { type BetterAuthOptions, type BetterAuthPlugin, betterAuth } from 'better-auth';
import { organization } from 'better-auth/plugins/organization';
import { twoFactor } from 'better-auth/plugins/two-factor';
import { type AdapterGuardOptions, adapterGuardPlugin } from './adapter-guard.ts';
import { authSecrets } from './auth-secrets.ts';
import { specDenialMessagesPlugin } from './denial-messages.ts';
import { LAST_ACTIVE_ORG_FIELD, lastActiveOrganizationHooks } from './last-active-org.ts';
import { type MemberLimits, planLimitMessagesPlugin } from './member-limits.ts';
import { orgEventHooks } from './org-events/hooks.ts';
import type { OrgEventRecorder } from './org-events/recorder.ts';
import { orgEventOutboxPlugin } from './org-events/schema.ts';
import { securityEventsPlugin } from './org-events/security-events.ts';
import { ssoEventsPlugin } from './org-events/sso-events.ts';
import { quotaWarningsPlugin } from './quota-warnings.ts';
import { sessionPolicyPlugin } from './session-policy.ts';
import { signInPolicyPlugin, signInPolicySchema } from './sign-in-policy.ts';
import { type SingleSignOnSettings, singleSignOnPlugins } from './single-sign-on.ts';

export const CLIENT_IP_HEADER = 'x-formgate-client-ip';
export const API_KEY_PREFIX = 'fg_';

export interface AuthSettings {
  /** better-auth's database: a better-sqlite3 Database (embedded) or `mongodbAdapter(db)` (distributed). */
  database: BetterAuthOptions['database'];
  /** The public origin of the product (cookies, links in emails, trusted origin). */
  publicUrl: string;
  /** Signs sessions and encrypts two-factor secrets (`AUTH_SECRET`). */
  secret: string;
  /** The replaced `AUTH_SECRET` during a rotation: decrypts what it encrypted until start re-encrypts it. */
  previousSecret?: string | undefined;
  /** Origins whose requests better-auth accepts (the public URL, and its loopback alias when unconfigured). */
  trustedOrigins: string[];
  /**
   * Identity provider origins on a private network that single sign-on may call (`SSO_TRUSTED_IDP_ORIGINS`):
   * providers at public addresses need no entry; any other is refused, so that registering a provider cannot make
   * the gateway call into its own network.
   */
  trustedIdpOrigins?: string[];
  mailer: Mailer;
  logger: Logger;
  /** Sign-in / sign-up / reset attempts allowed per client IP per minute. */
  signInPerMinute: number;
  /** Invitations expire after this many seconds. */
  invitationTtlSeconds: number;
  /** Where lifecycle events are recorded before the outbox relay publishes them. */
  recordOrgEvent: OrgEventRecorder;
  /** Revokes the organization's API keys: all of them, or those `createdBy` one user. */
  revokeApiKeys: (orgId: string, createdBy?: string) => Promise<void>;
  /** Deadline and write observer around better-auth's adapter (`adapterGuardPlugin`). */
  adapterGuard: AdapterGuardOptions;
  /** Called after a user's row changes while their email is verified (the site organization's first owner). */
  onVerifiedUser?: (user: { id: string; email: string }) => Promise<void>;
  /** Billing through Stripe (`stripeBillingPlugins`), only when the instance has Stripe keys. */
  billingPlugins?: BetterAuthPlugin[];
  /** The plan's `members` limit on invitations and memberships (`createMemberLimits`); absent: better-auth's 100. */
  memberLimits?: MemberLimits;
}

const minute = (max: number) => ({ window: 60, max });
const noAddMember = async () => {
  throw new Error('members are added by the auth instance createAuth builds');
};

/**
 * better-auth as Formgate configures it: email + password with verification, two-factor (TOTP and backup codes),
 * passkeys, single sign-on through an organization's OpenID Connect provider, the organization settings that require
 * two-factor or single sign-on, the organization plugin with teams
 * and the spec's access model, organization API keys, rate limits keyed by the client IP the gateway itself
 * resolved (a client's `X-Forwarded-For` cannot reset them), and every lifecycle change recorded for
 * `orgs.organization`.
 */
export function authOptions(s: AuthSettings, addMember: SingleSignOnSettings['addMember'] = noAddMember) {
  const hooks = orgEventHooks(s.recordOrgEvent);
  const send = (to: string, subject: string, text: string) => s.mailer.send({ to, subject, text }).then(() => {});
  return {
    appName: 'Formgate',
    baseURL: s.publicUrl,
    basePath: '/api/auth',
    secret: s.secret,
    // Versioned, so that a rotation keeps two-factor secrets readable (`auth-secrets.ts`).
    secrets: authSecrets(s.secret, s.previousSecret),
    database: s.database,
    trustedOrigins: [...s.trustedOrigins, ...(s.trustedIdpOrigins ?? [])],
    telemetry: { enabled: false },
    logger: {
      log: (level: 'info' | 'warn' | 'error' | 'debug', message: string) =>
        s.logger[level === 'debug' ? 'debug' : level]({ component: 'better-auth' }, message),
    },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: ({ user, url }) =>
        send(
          user.email,
          'Reset your Formgate password',
          `Reset your password: ${url}\n\nIgnore this if you did not ask.`,
        ),
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      sendVerificationEmail: ({ user, url }) =>
        send(user.email, 'Verify your email for Formgate', `Welcome to Formgate. Verify your email: ${url}`),
    },
    user: {
      deleteUser: { enabled: true },
      additionalFields: {
        [LAST_ACTIVE_ORG_FIELD]: { type: 'string', required: false, input: false, returned: false },
      },
    },
    databaseHooks: {
      user: {
        update: {
          after: async (user: { id: string; email: string; emailVerified: boolean }) => {
            if (!user.emailVerified || !s.onVerifiedUser) return;
            // Never fails the verification itself: the claim is retried at the user's next update.
            await s.onVerifiedUser(user).catch((err) => s.logger.warn({ err }, 'site organization owner claim'));
          },
        },
      },
      session: lastActiveOrganizationHooks(s.logger),
    },
    session: { expiresIn: 60 * 60 * 24 * 30, updateAge: 60 * 60 * 24 },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 300,
      storage: 'database',
      customRules: {
        '/sign-in/email': minute(s.signInPerMinute),
        '/sign-up/email': minute(s.signInPerMinute),
        '/request-password-reset': minute(s.signInPerMinute),
        '/send-verification-email': minute(s.signInPerMinute),
        // A second factor is guessed no faster than a password (the plugin also locks the account after 10 misses);
        // its set-up endpoints check the password. Replaces the plugin's own 3 per 10 s per path.
        '/two-factor/*': minute(s.signInPerMinute),
        '/passkey/verify-authentication': minute(s.signInPerMinute),
        // A single sign-on starts a provider round trip; registering and verifying make outbound calls (discovery,
        // DNS): none is worth more than a sign-in.
        '/sign-in/sso': minute(s.signInPerMinute),
        '/sso/register': minute(s.signInPerMinute),
        '/sso/verify-domain': minute(s.signInPerMinute),
        // Stripe's webhook (when billing is on): signed, so a flood costs a signature check each; limiting it would
        // only make Stripe retry real events later (and write a rate-limit row per delivery).
        '/stripe/webhook': false,
      },
    },
    advanced: {
      // better-auth skips both checks when NODE_ENV=test; Formgate never does.
      disableCSRFCheck: false,
      disableOriginCheck: false,
      cookiePrefix: 'formgate',
      ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] },
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
    },
    plugins: [
      adapterGuardPlugin(s.adapterGuard),
      organization({
        ac: accessControl,
        roles: ORG_ROLES,
        creatorRole: 'owner',
        teams: { enabled: true },
        schema: signInPolicySchema,
        invitationExpiresIn: s.invitationTtlSeconds,
        cancelPendingInvitationsOnReInvite: true,
        ...(s.memberLimits ? { membershipLimit: s.memberLimits.membershipLimit } : {}),
        sendInvitationEmail: ({ email, organization: org, inviter, id }) =>
          send(
            email,
            `Join ${org.name} on Formgate`,
            `${inviter.user.email} invited you to ${org.name}. Accept: ${s.publicUrl}/accept-invitation/${id}`,
          ),
        organizationHooks: {
          ...hooks,
          // The plan's members limit: pending invitations count (ADR 37).
          ...(s.memberLimits ? { beforeCreateInvitation: s.memberLimits.beforeCreateInvitation } : {}),
          // Keys are revoked first: if recording the event fails, the organization's keys are already dead.
          afterDeleteOrganization: async (data) => {
            await s.revokeApiKeys(data.organization.id);
            await hooks.afterDeleteOrganization(data);
          },
          // A member who leaves, or loses the right to hold keys, takes the keys they created along.
          afterRemoveMember: async (data) => {
            await s.revokeApiKeys(data.organization.id, data.member.userId);
            await hooks.afterRemoveMember(data);
          },
          afterUpdateMemberRole: async (data) => {
            if (!authorize(data.member.role.split(','), { apiKey: ['create'] }).success)
              await s.revokeApiKeys(data.organization.id, data.member.userId);
            await hooks.afterUpdateMemberRole(data);
          },
        },
      }),
      apiKey({
        references: 'organization',
        defaultPrefix: API_KEY_PREFIX,
        enableMetadata: true,
        apiKeyHeaders: ['x-api-key'],
        rateLimit: { enabled: false },
        keyExpiration: { defaultExpiresIn: null },
      }),
      // TOTP with backup codes (issue 32); set up from the profile with the password, required after the password
      // at sign-in (`twoFactorRedirect`); 10 backup codes, each good once.
      twoFactor({ issuer: 'Formgate', backupCodeOptions: { amount: 10 } }),
      // Passkeys (WebAuthn) for this host: registered from the profile, a sign-in of their own (no password).
      passkey({ rpID: new URL(s.publicUrl).hostname, rpName: 'Formgate', origin: s.trustedOrigins }),
      ...singleSignOnPlugins({ logger: s.logger, addMember }),
      signInPolicyPlugin(),
      sessionPolicyPlugin(),
      securityEventsPlugin({ record: s.recordOrgEvent, logger: s.logger }),
      ssoEventsPlugin({ record: s.recordOrgEvent, logger: s.logger }),
      orgEventOutboxPlugin(),
      quotaWarningsPlugin(),
      specDenialMessagesPlugin(),
      ...(s.memberLimits ? [planLimitMessagesPlugin(s.memberLimits)] : []),
      ...(s.billingPlugins ?? []),
    ],
  } satisfies BetterAuthOptions;
}

export function createAuth(s: AuthSettings) {
  // Single sign-on adds members through the organization plugin's own endpoint, so the instance refers to itself.
  const self: { auth?: { api: { addMember: (req: { body: Record<string, string> }) => Promise<unknown> } } } = {};
  const auth = betterAuth(
    authOptions(s, (member) => {
      if (!self.auth) throw new Error('auth is not built yet');
      return self.auth.api.addMember({ body: member });
    }),
  );
  self.auth = auth as unknown as typeof self.auth;
  return auth;
}

export type Auth = ReturnType<typeof createAuth>;
