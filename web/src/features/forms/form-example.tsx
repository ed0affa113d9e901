import type { CaptchaProvider } from '@formgate/contracts';
import { useState } from 'react';
import { CopyButton } from '../../components/copy-button.tsx';
import { SelectField } from '../../components/panel.tsx';
import { CheckboxField, TextField } from '../../components/ui.tsx';
import { CaptchaOptions } from '../spam/spam-captcha-group.tsx';
import { needsSecret } from '../spam/spam-settings.ts';
import { spamSnippet } from '../spam/spam-snippets.ts';
import { useForm } from './form-layout.tsx';
import { endpointUrl, type FormDto } from './forms.queries.ts';

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
export function FormExampleScreen() {
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
      <SpamSnippetGenerator form={form} endpoint={endpoint} />
    </div>
  );
}

/**
 * The page's part of the spam layers (issue 14): the time-trap's timestamp field and a captcha widget, for the
 * form's own settings by default. The snippet is text in a <pre>, never markup of this page.
 */
function SpamSnippetGenerator({ form, endpoint }: { form: FormDto; endpoint: string }) {
  const own = form.settings.spam;
  const [timeTrap, setTimeTrap] = useState((own?.timeTrapSeconds ?? 0) > 0);
  const [captcha, setCaptcha] = useState<CaptchaProvider | 'none'>(own?.captcha?.provider ?? 'none');
  const [siteKey, setSiteKey] = useState('');
  const [recaptchaV3, setRecaptchaV3] = useState(own?.captcha?.minScore != null);
  const code = spamSnippet({ endpoint, timeTrap, captcha, siteKey, recaptchaV3 });
  return (
    <section aria-labelledby="example-spam" className="flex min-w-0 flex-col gap-3">
      <div className="flex items-center justify-between gap-2">
        <h2 id="example-spam" className="text-lg font-semibold">
          Spam protection on your page
        </h2>
        <CopyButton text={code} label="Copy the spam protection example" />
      </div>
      <p className="max-w-2xl text-sm text-zinc-600 dark:text-zinc-400">
        The time-trap and the captchas need your page's help: add these pieces to your form, and turn the layers on in
        the form's settings (Spam protection).
      </p>
      <div className="flex max-w-2xl flex-col gap-3">
        <CheckboxField
          label="Time-trap timestamp field"
          checked={timeTrap}
          onChange={(e) => setTimeTrap(e.target.checked)}
        />
        <SelectField
          label="Captcha widget"
          value={captcha}
          onChange={(e) => setCaptcha(e.target.value as CaptchaProvider | 'none')}
        >
          <CaptchaOptions />
        </SelectField>
        {needsSecret(captcha) ? (
          <TextField
            label="Site key"
            hint="The provider's public site key (not the secret)."
            value={siteKey}
            spellCheck={false}
            onChange={(e) => setSiteKey(e.target.value)}
          />
        ) : null}
        {captcha === 'recaptcha' ? (
          <CheckboxField
            label="reCAPTCHA v3 (invisible, scored)"
            checked={recaptchaV3}
            onChange={(e) => setRecaptchaV3(e.target.checked)}
          />
        ) : null}
      </div>
      <pre className="overflow-x-auto rounded-md bg-zinc-900 p-4 text-xs leading-relaxed text-zinc-100 dark:bg-black">
        <code data-testid="spam-snippet">{code}</code>
      </pre>
    </section>
  );
}
