import { SSO_REQUIRED_MESSAGE, TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { Button, Notice } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import {
  SSO_ERROR_PARAM,
  ssoErrorPath,
  ssoReturnError,
  ssoStartError,
  withoutSsoError,
} from '../../lib/single-sign-on.ts';
import { useSignInWithSso } from '../session/session.mutations.ts';
import { organizationListQuery, type SessionData } from '../session/session.queries.ts';
import { useCan } from './use-can.ts';

/** The one dashboard screen open to a member whose session does not meet the organization's requirements. */
const PROFILE_PATH = '/dashboard/profile';

type Organization = { id: string; name: string; slug: string; requireTwoFactor?: boolean; requireSso?: boolean };

/**
 * The organization's requirement this session does not meet, as the server decides it (`sign-in-policy.ts`): single
 * sign-on first, for anyone but an owner (owners keep a way in when the provider is down), then two-factor. A role
 * not known yet is not an owner's, but decides nothing: the screens show until it is known.
 */
export function unmetRequirement(
  org: Organization,
  session: SessionData,
  role: string | null,
): 'sso' | 'two-factor' | null {
  const owner = role?.split(',').some((r) => r.trim() === 'owner') ?? false;
  if (org.requireSso === true && role !== null && !owner && session.session.ssoOrganizationId !== org.id) return 'sso';
  if (org.requireTwoFactor === true && session.user.twoFactorEnabled !== true) return 'two-factor';
  return null;
}

/**
 * The dashboard's screens, or, when the active organization requires what this session lacks, a screen saying so
 * with the way out: sign in again through the organization's identity provider, or set two-factor up on the profile
 * (the only screen left open; the server refuses the rest anyway). Until the organization list is known, the screens
 * show.
 */
export function SignInGate({ session, children }: { session: SessionData; children: ReactNode }) {
  const organizations = useQuery(organizationListQuery(useServices()));
  const { role } = useCan();
  const { pathname } = useLocation();
  const active = organizations.data?.find((org) => org.id === session.session.activeOrganizationId);
  const unmet = active ? unmetRequirement(active, session, role) : null;
  if (!active || !unmet || pathname.replace(/\/+$/, '') === PROFILE_PATH) return children;
  return unmet === 'sso' ? (
    <SsoRequired organization={active} email={session.user.email} />
  ) : (
    <TwoFactorRequired organization={active} />
  );
}

function GateHeading({ children }: { children: ReactNode }) {
  return <h1 className="text-2xl font-semibold break-words">{children}</h1>;
}

/**
 * Signs in again through the organization's own identity provider (by its slug: a member's address need not be in
 * its domain), back to this very screen; a failed return comes back here too (`?sso_error`) and is said.
 */
function SsoRequired({ organization, email }: { organization: Organization; email: string }) {
  const location = useLocation();
  const [params] = useSearchParams();
  const signIn = useSignInWithSso();
  const here = location.pathname + location.search;
  const leaving = signIn.isPending || signIn.isSuccess;
  const start = () =>
    signIn.mutate({
      organizationSlug: organization.slug,
      loginHint: email,
      callbackURL: withoutSsoError(here),
      errorCallbackURL: ssoErrorPath(here),
    });
  return (
    <div className="flex max-w-2xl flex-col gap-4">
      <GateHeading>{organization.name} requires single sign-on</GateHeading>
      <Notice>
        <p>{SSO_REQUIRED_MESSAGE}.</p>
        <p className="mt-1">
          You signed in another way. Sign in with your work account at the organization's identity provider, and you
          come back here. Until then you can reach only your profile.
        </p>
      </Notice>
      {signIn.error ? <Notice tone="error">{ssoStartError(signIn.error, 'organization')}</Notice> : null}
      {params.has(SSO_ERROR_PARAM) && !signIn.error && !leaving ? (
        <Notice tone="error">{ssoReturnError(params.get('error'))}</Notice>
      ) : null}
      <div className="flex flex-wrap items-center gap-3">
        <Button disabled={leaving} onClick={start}>
          {leaving ? 'Taking you to your identity provider…' : 'Sign in with SSO'}
        </Button>
        <Link to={PROFILE_PATH} className="text-sm text-brand-600 underline dark:text-brand-50">
          Go to your profile
        </Link>
      </div>
    </div>
  );
}

function TwoFactorRequired({ organization }: { organization: Organization }) {
  return (
    <div className="flex max-w-2xl flex-col gap-4">
      <GateHeading>{organization.name} requires two-factor authentication</GateHeading>
      <Notice>
        <p>{TWO_FACTOR_REQUIRED_MESSAGE}.</p>
        <p className="mt-1">
          Until then you can reach only your profile. Two-factor asks for a code from an app on your phone when you sign
          in, as well as your password.
        </p>
      </Notice>
      <Link
        to={PROFILE_PATH}
        className="self-start rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
      >
        Set up two-factor on your profile
      </Link>
    </div>
  );
}
