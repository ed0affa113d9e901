import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { TextField } from '../../components/ui.tsx';
import { PublicForm } from './public-form.tsx';
import { siteQuery } from './site.queries.ts';

const FEATURES = [
  ['Point any form at it', 'HTML, fetch, React: change the action to your Formgate endpoint. No server to write.'],
  [
    'Never lose a submission',
    'Written to a durable log before we answer. Over your quota, submissions are held, not dropped.',
  ],
  ['Spam you can see into', 'Honeypots, rate limits and captchas, with every verdict and its reasons on record.'],
  ['Teams and organizations', 'Invite your team, give roles, and manage forms together.'],
  ['Drop-in compatible', 'Formspree’s wire format and every common field alias: moving is a one-line change.'],
  ['Yours to run', 'One command on one machine, or scaled out on Kafka. Your data stays where you put it.'],
] as const;

const SNIPPET = `<form action="https://your-formgate/f/YOUR_FORM_KEY" method="POST">
  <input type="email" name="email" required>
  <textarea name="message"></textarea>
  <button type="submit">Send</button>
</form>`;

export function HomeScreen() {
  const site = useQuery(siteQuery());
  const example = site.data?.forms.example;
  return (
    <div className="flex flex-col gap-16">
      <section className="flex flex-col items-start gap-5 pt-6">
        <h1 className="max-w-3xl text-4xl font-bold tracking-tight sm:text-5xl">
          The best form submission API for startups
        </h1>
        <p className="max-w-2xl text-lg text-zinc-700 dark:text-zinc-300">
          Formgate receives your website’s forms, filters the spam, stores every submission safely and tells your team.
          You keep building your product.
        </p>
        <div className="flex flex-wrap gap-3">
          <Link to="/sign-up" className="rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700">
            Start for free
          </Link>
          <Link to="/pricing" className="rounded-md border border-zinc-300 px-4 py-2 font-medium dark:border-zinc-700">
            See pricing
          </Link>
        </div>
      </section>
      <section aria-labelledby="features-heading">
        <h2 id="features-heading" className="sr-only">
          What it does
        </h2>
        <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {FEATURES.map(([title, text]) => (
            <li key={title} className="rounded-lg border border-zinc-200 p-5 dark:border-zinc-800">
              <h3 className="font-semibold">{title}</h3>
              <p className="mt-2 text-sm text-zinc-700 dark:text-zinc-300">{text}</p>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="example-heading" className="grid gap-8 lg:grid-cols-2">
        <div className="flex min-w-0 flex-col gap-3">
          <h2 id="example-heading" className="text-2xl font-semibold">
            Try it
          </h2>
          <p className="text-zinc-700 dark:text-zinc-300">
            This form posts to a real Formgate form on this instance. Yours looks like this:
          </p>
          {/* Wrapped, not scrolled: a scrolling region would need keyboard focus (axe: scrollable-region-focusable). */}
          <pre className="whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-4 text-sm dark:bg-zinc-900">
            <code>{SNIPPET}</code>
          </pre>
        </div>
        {example ? (
          <PublicForm endpoint={example} submitLabel="Send" success="Received! That is all it takes.">
            <TextField label="Email" name="email" type="email" autoComplete="email" required />
            <TextField label="Message" name="message" required />
          </PublicForm>
        ) : (
          <p className="text-zinc-600 dark:text-zinc-400">The live example is not set up on this instance.</p>
        )}
      </section>
    </div>
  );
}
