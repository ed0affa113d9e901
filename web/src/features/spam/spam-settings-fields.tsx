import { CAPTCHA_PROVIDERS, type SpamSettings } from '@formgate/contracts';
import type { ReactNode } from 'react';
import type { UseFormReturn } from 'react-hook-form';
import { fieldOf } from '../../components/form-field.ts';
import { SelectField } from '../../components/panel.tsx';
import { CheckboxField, TextAreaField, TextField } from '../../components/ui.tsx';
import { CAPTCHA_LABELS, inheritedFieldsOf, needsSecret, type SpamFormValues, type SpamKey } from './spam-settings.ts';

/**
 * The spam settings editor (issue 14): one group per key of `settings.spam`, each with "use the default" (the key
 * left out: the organization's default for a form, the built-in one for an organization). Used by the form's
 * "Spam protection" panel and the organization's spam defaults; the caller owns the form and its saving.
 */
export function SpamSettingsFields(props: {
  fields: UseFormReturn<SpamFormValues>;
  /** What each inherited key falls back to (shown, read-only, while inherited). */
  inherited: SpamSettings;
  /** "Use the organization's default" / "Use the built-in default". */
  inheritLabel: string;
  /** The form's allowed origins (a form only: organizations have none). */
  allowedOrigins?: string[];
}) {
  const { fields, inherited, inheritLabel } = props;
  const provider = fields.watch('captcha.provider');
  const captcha = fields.watch('captcha');
  const group = { fields, inherited, inheritLabel };
  return (
    <div className="flex flex-col gap-4">
      <Group {...group} name="timeTrapSeconds" title="Time-trap">
        <TextField
          label="Minimum seconds between rendering and sending"
          inputMode="numeric"
          hint="A submission sent sooner after its signed render timestamp is spam; 0 turns it off. Needs the page's timestamp field (see the examples)."
          {...fieldOf(fields, 'timeTrapSeconds.value')}
        />
      </Group>

      <Group {...group} name="origins" title="Allowed origins check">
        <SelectField label="A request from an origin the form does not allow" {...fields.register('origins.value')}>
          <option value="off">is accepted (off)</option>
          <option value="flag">is stored as spam (flag)</option>
          <option value="reject">is refused with 403 BLOCKED (reject)</option>
        </SelectField>
        {props.allowedOrigins === undefined ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Applies to the forms that list allowed origins in their settings.
          </p>
        ) : props.allowedOrigins.length === 0 ? (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            This form lists no allowed origins yet (Settings above), so nothing is checked.
          </p>
        ) : (
          <div className="flex flex-col gap-1 text-sm">
            <p className="text-zinc-600 dark:text-zinc-400">Checked against the form's allowed origins:</p>
            <ul aria-label="Allowed origins in use" className="list-disc pl-5 font-mono text-xs">
              {props.allowedOrigins.map((o) => (
                <li key={o} className="break-all">
                  {o}
                </li>
              ))}
            </ul>
          </div>
        )}
      </Group>

      <Group {...group} name="captcha" title="Captcha">
        <SelectField label="Provider" {...fields.register('captcha.provider')}>
          <CaptchaOptions />
        </SelectField>
        {needsSecret(provider) ? (
          <TextField
            label="Secret key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={captcha.secretSet && captcha.savedProvider === provider ? 'Set (type to replace)' : ''}
            hint={
              captcha.secretSet && captcha.savedProvider === provider
                ? 'A secret is set; it is never shown. Leave empty to keep it.'
                : 'From the provider’s dashboard; it is stored and never shown again.'
            }
            {...fieldOf(fields, 'captcha.secret')}
          />
        ) : null}
        {provider === 'recaptcha' ? (
          <TextField
            label="Minimum score (reCAPTCHA v3)"
            inputMode="decimal"
            placeholder="0.5"
            hint="From 0 to 1; empty for reCAPTCHA v2 (no score)."
            {...fieldOf(fields, 'captcha.minScore')}
          />
        ) : null}
        {provider === 'none' ? null : (
          <SelectField label="A missing or failed captcha" {...fields.register('captcha.onFailure')}>
            <option value="flag">is stored as spam (flag)</option>
            <option value="reject">is refused with 403 BLOCKED (reject)</option>
          </SelectField>
        )}
        {provider === 'none' ? null : (
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            When the provider cannot be reached the submission is stored as spam, never lost.
          </p>
        )}
      </Group>

      <Group {...group} name="rateLimit" title="Rate limits">
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Requests per minute; 0 means no limit. Over a limit: 429 RATE_LIMITED with Retry-After, nothing stored.
        </p>
        <div className="grid gap-3 sm:grid-cols-3">
          <TextField label="Per IP address" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perIpPerMinute')} />
          <TextField label="Per form" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perFormPerMinute')} />
          <TextField label="Per organization" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perOrgPerMinute')} />
        </div>
      </Group>

      <Group {...group} name="rules" title="Content rules">
        <TextAreaField
          mono
          label="Blocked words"
          hint="One word or phrase a line, matched whole and case-insensitively in any field."
          {...fieldOf(fields, 'rules.blockedWords')}
        />
        <TextAreaField
          mono
          label="Blocked email domains"
          hint="One domain a line; its subdomains are blocked too."
          {...fieldOf(fields, 'rules.blockedDomains')}
        />
        <div className="grid gap-3 sm:grid-cols-2">
          <TextField
            label="Most links allowed"
            inputMode="numeric"
            placeholder="No limit"
            hint="More links than this across the fields score; empty for no limit."
            {...fieldOf(fields, 'rules.maxLinks')}
          />
          <TextField
            label="Spam score threshold"
            inputMode="numeric"
            hint="Each rule hit adds to the score; at or above this, the submission is spam."
            {...fieldOf(fields, 'rules.threshold')}
          />
        </div>
        <CheckboxField
          label="Score addresses at disposable email providers"
          {...fields.register('rules.disposableEmails')}
        />
      </Group>

      <Group {...group} name="shadow" title="Shadow mode">
        <CheckboxField
          role="switch"
          aria-checked={fields.watch('shadow.value')}
          label="Only record what the layers would have done"
          {...fields.register('shadow.value')}
        />
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Try rules without refusing or flagging anyone: each submission shows the reasons marked "shadow". The honeypot
          always acts.
        </p>
      </Group>
    </div>
  );
}

/** One key: its "use the default" box and its fields, disabled (showing the fallback's value) while inherited. */
function Group(props: {
  fields: UseFormReturn<SpamFormValues>;
  inherited: SpamSettings;
  inheritLabel: string;
  name: SpamKey;
  title: string;
  children: ReactNode;
}) {
  const { fields, name } = props;
  const inherit = fields.watch(`${name}.inherit`);
  const toggle = (on: boolean) => {
    if (on) {
      // Back to the fallback: show its values again (they are not sent).
      fields.setValue(name, { ...inheritedFieldsOf(name, props.inherited), inherit: true } as never, {
        shouldDirty: true,
      });
      fields.clearErrors(name);
    } else fields.setValue(`${name}.inherit`, false, { shouldDirty: true });
  };
  return (
    <fieldset className="flex min-w-0 flex-col gap-3 rounded-md border border-zinc-200 p-3 dark:border-zinc-800">
      <legend className="px-1 text-sm font-semibold">{props.title}</legend>
      <label className="flex items-center gap-3 text-sm">
        <input type="checkbox" className="size-4" checked={inherit} onChange={(e) => toggle(e.target.checked)} />
        {props.inheritLabel}
      </label>
      <fieldset disabled={inherit} className="flex min-w-0 flex-col gap-3">
        {props.children}
      </fieldset>
    </fieldset>
  );
}

/** "None" and every captcha provider, as a select's options. */
export function CaptchaOptions() {
  return (
    <>
      <option value="none">None</option>
      {CAPTCHA_PROVIDERS.map((p) => (
        <option key={p} value={p}>
          {CAPTCHA_LABELS[p]}
        </option>
      ))}
    </>
  );
}
