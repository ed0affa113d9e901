import { useState } from 'react';
import { isRouteErrorResponse, useRouteError } from 'react-router';
import { Button } from '../../components/ui.tsx';
import { reloadOnceForChunkError } from '../../lib/chunk-reload.ts';
import { NotFound } from './not-found.tsx';

const messageOf = (err: unknown) =>
  err instanceof Error ? err.message : isRouteErrorResponse(err) ? `${err.status} ${err.statusText}` : String(err);

/** "Something went wrong!" with a toggle that reveals the error's message. */
export function ErrorScreen({ error }: { error: unknown }) {
  const [shown, setShown] = useState(false);
  return (
    <main className="mx-auto flex min-h-dvh max-w-xl flex-col items-start justify-center gap-4 p-6">
      <h1 className="text-2xl font-semibold">Something went wrong!</h1>
      <Button variant="secondary" aria-expanded={shown} onClick={() => setShown((s) => !s)}>
        {shown ? 'Hide Error' : 'Show Error'}
      </Button>
      {shown ? (
        <pre className="w-full overflow-auto rounded-md bg-zinc-100 p-3 text-sm whitespace-pre-wrap dark:bg-zinc-900">
          {messageOf(error)}
        </pre>
      ) : null}
    </main>
  );
}

/** The root route's error element: a 404 reads "Not Found"; a stale route chunk reloads the page once. */
export function RootErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && error.status === 404) return <NotFound />;
  if (reloadOnceForChunkError(error, window.sessionStorage, () => window.location.reload())) return null;
  return <ErrorScreen error={error} />;
}
