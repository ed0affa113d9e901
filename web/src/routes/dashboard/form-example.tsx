import { CopyButton } from '../../components/copy-button.tsx';
import { endpointUrl } from '../../features/forms/forms.queries.ts';
import { useForm } from './form-layout.tsx';

/** The copy-paste snippets for a form's endpoint (`/f/{key}` on this instance's origin). */
export function snippets(endpoint: string, key: string, origin: string, honeypot: string) {
  return [
    {
      id: 'html',
      title: 'HTML form',
      description: 'No JavaScript needed: the browser posts the form, then shows the thank-you page or your redirect.',
      code: `<form action="${endpoint}" method="POST">
  <label>Email <input name="email" type="email" required></label>
  <label>Message <textarea name="message"></textarea></label>
  <!-- honeypot: people leave it empty, bots fill it -->
  <input name="${honeypot}" style="display:none" tabindex="-1" autocomplete="off">
  <button type="submit">Send</button>
</form>`,
    },
    {
      id: 'fetch',
      title: 'fetch',
      description: 'From your own script; Accept: application/json answers JSON instead of a redirect.',
      code: `const form = document.querySelector('form');
form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const response = await fetch('${endpoint}', {
    method: 'POST',
    body: new FormData(form),
    headers: { Accept: 'application/json' },
  });
  const result = await response.json();
  if (result.ok) form.reset();
  else alert(result.errors?.map((e) => e.message).join(', ') ?? 'Could not send');
});`,
    },
    {
      id: 'react',
      title: 'React',
      description: 'A component that posts with fetch and shows the outcome.',
      code: `import { useState } from 'react';

export function ContactForm() {
  const [status, setStatus] = useState('idle');
  async function onSubmit(event) {
    event.preventDefault();
    setStatus('sending');
    const response = await fetch('${endpoint}', {
      method: 'POST',
      body: new FormData(event.currentTarget),
      headers: { Accept: 'application/json' },
    });
    setStatus(response.ok ? 'sent' : 'error');
  }
  if (status === 'sent') return <p>Thanks, we got it!</p>;
  return (
    <form onSubmit={onSubmit}>
      <label>Email <input name="email" type="email" required /></label>
      <label>Message <textarea name="message" /></label>
      <button type="submit" disabled={status === 'sending'}>Send</button>
      {status === 'error' ? <p role="alert">Could not send, try again.</p> : null}
    </form>
  );
}`,
    },
    {
      id: 'formspree',
      title: '@formspree/core',
      description: 'Formgate speaks Formspree’s wire format: keep the library, change the endpoint.',
      code: `import { createClient } from '@formspree/core';

const client = createClient();
const result = await client.submitForm('${key}', new FormData(form), {
  endpoint: '${origin}',
});`,
    },
  ];
}

/** `/dashboard/forms/{formSlug}/example`: snippets with the form's real endpoint, each with a copy button. */
export function Component() {
  const form = useForm();
  const origin = window.location.origin;
  const endpoint = endpointUrl(form, origin);
  const list = snippets(endpoint, form.key, origin, form.settings.honeypotField ?? '_gotcha');
  return (
    <div className="flex flex-col gap-8">
      <p className="max-w-2xl text-zinc-700 dark:text-zinc-300">
        Send any form to <code className="break-all">{endpoint}</code>. Every field arrives as a submission; files too,
        with <code>enctype="multipart/form-data"</code>.
      </p>
      {list.map((s) => (
        <section key={s.id} aria-labelledby={`example-${s.id}`} className="flex min-w-0 flex-col gap-2">
          <div className="flex items-center justify-between gap-2">
            <h2 id={`example-${s.id}`} className="text-lg font-semibold">
              {s.title}
            </h2>
            <CopyButton text={s.code} label={`Copy the ${s.title} example`} />
          </div>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">{s.description}</p>
          <pre className="overflow-x-auto rounded-md bg-zinc-900 p-4 text-xs leading-relaxed text-zinc-100 dark:bg-black">
            <code>{s.code}</code>
          </pre>
        </section>
      ))}
    </div>
  );
}
