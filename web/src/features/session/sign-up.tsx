import { Link, Navigate } from 'react-router';
import { LoadingShell } from '../../components/loading-shell.tsx';
import { SignUpForm } from './sign-up-form.tsx';
import { useSession } from './use-session.ts';

export function SignUpScreen() {
  const session = useSession();
  if (session.isPending) return <LoadingShell />;
  if (session.data) return <Navigate to="/dashboard" replace />;
  return (
    <div className="flex flex-col gap-5">
      <h1 className="text-xl font-semibold">Create your account</h1>
      <SignUpForm />
      <p className="text-sm">
        Already have one?{' '}
        <Link to="/login" className="text-brand-600 underline dark:text-brand-50">
          Sign in
        </Link>
      </p>
    </div>
  );
}
