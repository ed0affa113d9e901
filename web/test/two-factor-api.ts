import { TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import type { SessionData } from '../src/features/session/session.queries.ts';
import type { ApiHandler, RecordedRequest } from './api-server.ts';

export const PASSWORD = 'correct horse battery';
/** The code the authenticator app shows now. */
export const TOTP_CODE = '123456';
export const TOTP_URI = 'otpauth://totp/Formgate:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Formgate&digits=6';
export const TOTP_SECRET = 'JBSWY3DPEHPK3PXP';
export const backupCodesOf = (prefix: string) => Array.from({ length: 10 }, (_, i) => `${prefix}${i}-abcde`);

/** What the stand-in knows: the user's session and two-factor, and the organization's setting. */
export interface TwoFactorWorld {
  signedIn: boolean;
  twoFactorEnabled: boolean;
  requireTwoFactor: boolean;
  role: string;
  backupCodes: string[];
  /** Set: every code of a sign-in's second step is refused with it (an expired or spent challenge, a locked account). */
  challengeRefusal?: { status: number; code: string; message: string };
}

export const aWorld = (over: Partial<TwoFactorWorld> = {}): TwoFactorWorld => ({
  signedIn: true,
  twoFactorEnabled: false,
  requireTwoFactor: false,
  role: 'owner',
  backupCodes: backupCodesOf('old'),
  ...over,
});

const at = '2026-11-01T10:00:00.000Z';

export const sessionOf = (world: TwoFactorWorld): SessionData => ({
  user: {
    id: 'u1',
    email: 'ada@example.com',
    name: 'Ada',
    emailVerified: true,
    twoFactorEnabled: world.twoFactorEnabled,
  },
  session: { activeOrganizationId: 'org1', token: 'tok-here' },
});

const organizationOf = (world: TwoFactorWorld) => ({
  id: 'org1',
  name: 'Acme',
  slug: 'acme',
  createdAt: at,
  requireTwoFactor: world.requireTwoFactor,
});

const refused = (status: number, code: string, message: string) => ({ status, body: { code, message } });
const blocked = (world: TwoFactorWorld) => world.requireTwoFactor && !world.twoFactorEnabled;
const passwordOf = (req: RecordedRequest) => (req.body as { password?: string } | undefined)?.password;
const codeOf = (req: RecordedRequest) => (req.body as { code?: string } | undefined)?.code;

/** better-auth's two-factor endpoints, as the gateway answers them, over `world` (changed as the calls succeed). */
function twoFactorEndpoints(world: TwoFactorWorld, req: RecordedRequest) {
  const badPassword = passwordOf(req) !== PASSWORD ? refused(400, 'INVALID_PASSWORD', 'Invalid password') : undefined;
  switch (req.path) {
    case '/api/auth/two-factor/enable':
      return badPassword ?? { body: { method: 'totp', totpURI: TOTP_URI, backupCodes: backupCodesOf('new') } };
    case '/api/auth/two-factor/generate-backup-codes':
      if (badPassword) return badPassword;
      world.backupCodes = backupCodesOf('fresh');
      return { body: { status: true, backupCodes: world.backupCodes } };
    case '/api/auth/two-factor/disable':
      if (badPassword) return badPassword;
      world.twoFactorEnabled = false;
      return { body: { status: true } };
    case '/api/auth/two-factor/verify-totp': {
      if (!world.signedIn && world.challengeRefusal)
        return { status: world.challengeRefusal.status, body: world.challengeRefusal };
      if (codeOf(req) !== TOTP_CODE) return refused(401, 'INVALID_CODE', 'Invalid code');
      if (world.signedIn) world.twoFactorEnabled = true;
      world.signedIn = true;
      return { body: { token: 'tok-new', user: sessionOf(world).user } };
    }
    case '/api/auth/two-factor/verify-backup-code': {
      if (world.challengeRefusal) return { status: world.challengeRefusal.status, body: world.challengeRefusal };
      const code = codeOf(req) ?? '';
      if (!world.backupCodes.includes(code)) return refused(401, 'INVALID_BACKUP_CODE', 'Invalid backup code');
      world.backupCodes = world.backupCodes.filter((c) => c !== code);
      world.signedIn = true;
      return { body: { token: 'tok-new', user: sessionOf(world).user } };
    }
    default:
      return undefined;
  }
}

/** The organization endpoints the dashboard calls, with the setting and the refusals of the gateway's policy. */
function organizationEndpoints(world: TwoFactorWorld, req: RecordedRequest) {
  switch (req.path) {
    case '/api/auth/organization/list':
      return { body: [organizationOf(world)] };
    case '/api/auth/organization/get-active-member':
      return { body: { id: 'm-u1', organizationId: 'org1', userId: 'u1', role: world.role, createdAt: at } };
    case '/api/auth/organization/get-full-organization':
      if (blocked(world)) return refused(403, 'TWO_FACTOR_REQUIRED', TWO_FACTOR_REQUIRED_MESSAGE);
      return { body: { ...organizationOf(world), members: [], invitations: [], teams: [] } };
    case '/api/auth/organization/update': {
      const data = (req.body as { data: { requireTwoFactor?: boolean } }).data;
      if (data.requireTwoFactor === true && !world.twoFactorEnabled)
        return refused(
          400,
          'TWO_FACTOR_NOT_SET_UP',
          'Set up two-factor authentication on your profile before you require it of members',
        );
      if (data.requireTwoFactor !== undefined) world.requireTwoFactor = data.requireTwoFactor;
      return { body: organizationOf(world) };
    }
    default:
      return undefined;
  }
}

/**
 * A stand-in for the gateway's better-auth and `/api/v1` answers around two-factor, for `startApi`: the session,
 * sign-in (answering `twoFactorRedirect` when two-factor is on), the two-factor endpoints, the organization with its
 * `requireTwoFactor`, and `/api/v1` refusing a member without two-factor when it is required.
 */
export function twoFactorApi(world: TwoFactorWorld): ApiHandler {
  return (req) => {
    if (req.path === '/api/auth/get-session') return { body: world.signedIn ? sessionOf(world) : null };
    if (req.path === '/api/auth/list-sessions') return { body: [] };
    if (req.path === '/api/auth/sign-in/email') {
      if (passwordOf(req) !== PASSWORD) return refused(401, 'INVALID_EMAIL_OR_PASSWORD', 'Invalid email or password');
      if (world.twoFactorEnabled) return { body: { twoFactorRedirect: true, twoFactorMethods: ['totp'] } };
      world.signedIn = true;
      return { body: { redirect: false, token: 'tok-new', user: sessionOf(world).user } };
    }
    if (req.path.startsWith('/api/auth/two-factor/')) return twoFactorEndpoints(world, req);
    if (req.path.startsWith('/api/auth/organization/')) return organizationEndpoints(world, req);
    if (req.path.startsWith('/api/v1/') && blocked(world))
      return { status: 403, body: { error: { code: 'TWO_FACTOR_REQUIRED', message: TWO_FACTOR_REQUIRED_MESSAGE } } };
    if (req.path === '/api/v1/forms') return { body: { data: [] } };
    if (req.path === '/api/v1/api-keys') return { body: { data: [] } };
    if (req.path === '/api/v1/orgs/settings')
      return { body: { submission_notification_email: null, email_management: false } };
    return undefined;
  };
}
