import { TWO_FACTOR_REQUIRED_MESSAGE } from '@formgate/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { Notice } from '../../components/ui.tsx';
import { useServices } from '../../lib/app-context.tsx';
import { organizationListQuery, type SessionData } from '../session/session.queries.ts';

/** The one dashboard screen open to a member who still has to set two-factor up. */
const PROFILE_PATH = '/dashboard/profile';

/**
 * The dashboard's screens, or, when the active organization requires two-factor and the user has not set it up, a
 * screen saying so with the way to their profile (the only screen left open; the server refuses the rest anyway).
 * Until the organization list is known, the screens show.
 */
export function TwoFactorGate({ session, children }: { session: SessionData; children: ReactNode }) {
  const organizations = useQuery(organizationListQuery(useServices()));
  const { pathname } = useLocation();
  const active = organizations.data?.find((org) => org.id === session.session.activeOrganizationId);
  const blocked = active?.requireTwoFactor === true && session.user.twoFactorEnabled !== true;
  if (!active || !blocked || pathname.replace(/\/+$/, '') === PROFILE_PATH) return children;
  return (
    <div className="flex max-w-2xl flex-col gap-4">
      <h1 className="text-2xl font-semibold break-words">{active.name} requires two-factor authentication</h1>
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
