import { useEffect } from 'react';
import { Link } from 'react-router';
import { useSignOut } from './session.mutations.ts';

/** Signs the visitor out on arrival (a link anyone can bookmark), then says so. */
export function LogoutScreen() {
  const signOut = useSignOut();
  const { mutate } = signOut;
  useEffect(() => mutate(), [mutate]);
  return (
    <div className="mx-auto flex max-w-md flex-col gap-4" role="status">
      <h1 className="text-3xl font-bold">{signOut.isSuccess ? 'You are signed out' : 'Signing you out…'}</h1>
      {signOut.isSuccess ? (
        <p>
          <Link to="/login" className="text-brand-600 underline dark:text-brand-50">
            Sign in again
          </Link>{' '}
          or go to the{' '}
          <Link to="/" className="text-brand-600 underline dark:text-brand-50">
            homepage
          </Link>
          .
        </p>
      ) : null}
    </div>
  );
}
