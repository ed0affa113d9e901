import { Link, useSearchParams } from 'react-router';

/** Where the verification link lands (better-auth verified the address and signed the user in, or says why not). */
export function VerifyEmailScreen() {
  const error = useSearchParams()[0].get('error');
  if (error)
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-xl font-semibold">This link did not work</h1>
        <p>It may have expired or been used already. Sign in to get a new one.</p>
        <Link to="/login" className="text-brand-600 underline dark:text-brand-50">
          Sign in
        </Link>
      </div>
    );
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-xl font-semibold">Your email is verified</h1>
      <p>Welcome to Formgate. Set up your organization to create your first form.</p>
      <Link to="/onboard" className="rounded-md bg-brand-600 px-3.5 py-2 text-center text-sm font-medium text-white">
        Continue
      </Link>
    </div>
  );
}
