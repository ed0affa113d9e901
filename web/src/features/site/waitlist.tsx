import { useQuery } from '@tanstack/react-query';
import { TextField } from '../../components/ui.tsx';
import { PublicForm } from './public-form.tsx';
import { siteQuery } from './site.queries.ts';

/** The waitlist is a form of this instance: each sign-up is one of its submissions. */
export function WaitlistScreen() {
  const site = useQuery(siteQuery());
  const endpoint = site.data?.forms.waitlist;
  return (
    <div className="mx-auto flex max-w-md flex-col gap-5">
      <h1 className="text-3xl font-bold">Join the waitlist</h1>
      <p className="text-zinc-700 dark:text-zinc-300">
        New features and paid plans open to the waitlist first. We will write to you once, when it is your turn.
      </p>
      {site.isPending ? <p role="status">Loading</p> : null}
      {endpoint ? (
        <PublicForm endpoint={endpoint} submitLabel="Join the waitlist" success="You are on the list. Thank you!">
          <TextField label="Email" name="email" type="email" autoComplete="email" required />
          <TextField label="Company (optional)" name="company" autoComplete="organization" />
        </PublicForm>
      ) : site.isSuccess ? (
        <p>The waitlist is not open on this instance.</p>
      ) : null}
    </div>
  );
}
