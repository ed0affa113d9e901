import { useQuery } from '@tanstack/react-query';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { userExistsQuery } from './session.queries.ts';
import { SignInForm } from './sign-in-form.tsx';
import { SignUpForm } from './sign-up-form.tsx';
import { safeRedirect, useSession } from './use-session.ts';

/**
 * `/login/{email}`: looks the address up first (`GET /api/v1/users/by-email/{email}`, rate-limited), then shows
 * sign-in for a known address and sign-up for a new one, prefilled. A failed lookup falls back to sign-in. A signed-in
 * visitor goes on to `redirect`, as after signing in (`LoginScreen`).
 */
export function LoginEmailScreen() {
  const { email = '' } = useParams();
  const [params] = useSearchParams();
  const session = useSession();
  const lookup = useQuery(userExistsQuery(email));
  const redirectTo = safeRedirect(params.get('redirect'));
  if (session.isPending || lookup.isPending) return <LoadingShell />;
  if (session.data) return <Navigate to={redirectTo} replace />;
  const isNew = lookup.data?.exists === false;
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">{isNew ? 'Create your account' : 'Welcome back'}</h1>
      {isNew ? <SignUpForm email={email} /> : <SignInForm email={email} redirectTo={redirectTo} />}
      <p className="text-sm">
        Not {email}?{' '}
        <Link to="/login" className="text-brand-600 underline dark:text-brand-50">
          Use another address
        </Link>
      </p>
    </div>
  );
}
