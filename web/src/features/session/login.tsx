import { Link, Navigate, useSearchParams } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { SignInForm } from './sign-in-form.tsx';
import { safeRedirect, useSession } from './use-session.ts';

/** `/login?redirect=`: a signed-in visitor goes to `/dashboard`; after signing in, to `redirect` (a local path). */
export function LoginScreen() {
  const session = useSession();
  const [params] = useSearchParams();
  if (session.isPending) return <LoadingShell />;
  if (session.data) return <Navigate to="/dashboard" replace />;
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">Sign in to Formgate</h1>
      <SignInForm redirectTo={safeRedirect(params.get('redirect'))} />
      <p className="text-sm">
        New here?{' '}
        <Link to="/sign-up" className="text-brand-600 underline dark:text-brand-50">
          Create an account
        </Link>
      </p>
    </div>
  );
}
