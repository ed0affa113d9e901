import { useSearchParams } from 'react-router';

/** An http(s) URL, or null: the same rule as ingest's thank-you page (`INVALID_REFERER` otherwise). */
export function refererOf(value: string | null): URL | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * The thank-you page after a plain HTML form. A browser that lands here from a form is answered by ingest's own
 * server page (it needs no JavaScript and allows any origin); this is the same page for in-app navigation.
 */
export function SubmissionReceivedScreen() {
  const referer = refererOf(useSearchParams()[0].get('referer'));
  if (!referer)
    return (
      <main className="mx-auto flex min-h-dvh max-w-md flex-col items-start justify-center gap-4 p-6">
        <h1 className="text-2xl font-bold">This link is incomplete</h1>
        <p>The address of the page the form was sent from is missing or is not a web address.</p>
      </main>
    );
  return (
    <main className="mx-auto flex min-h-dvh max-w-md flex-col items-start justify-center gap-4 p-6">
      <h1 className="text-3xl font-bold">Thank you!</h1>
      <p>Your submission was received.</p>
      <a href={referer.href} rel="noopener noreferrer" className="text-brand-600 underline dark:text-brand-50">
        Go back
      </a>
    </main>
  );
}
