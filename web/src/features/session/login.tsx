import { Link, Navigate, useSearchParams } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { SignInForm } from './sign-in-form.tsx';
import { safeRedirect, useSession } from './use-session.ts';

/**
 * `/login?redirect=`: after signing in, and for a visitor already signed in, on to `redirect` (a local path; by
 * default `/dashboard`). The session appears before the sign-in's own step runs, so both go to the same place.
 */
export function LoginScreen() {
  const session = useSession();
  const [params] = useSearchParams();
  const redirectTo = safeRedirect(params.get('redirect'));
  if (session.isPending) return <LoadingShell />;
  if (session.data) return <Navigate to={redirectTo} replace />;
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">Sign in to Formgate</h1>
      <SignInForm redirectTo={redirectTo} />
      <p className="text-sm">
        New here?{' '}
        <Link to="/sign-up" className="text-brand-600 underline dark:text-brand-50">
          Create an account
        </Link>
      </p>
    </div>
  );
}
