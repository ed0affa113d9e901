import { CAPTCHA_PROVIDERS } from '@formgate/contracts';
import { fieldOf } from '../../components/form-field.ts';
import { SelectField } from '../../components/panel.tsx';
import { TextField } from '../../components/ui.tsx';
import { Group, type GroupProps } from './spam-group.tsx';
import { CAPTCHA_LABELS, needsSecret } from './spam-settings.ts';

/** The captcha provider, its secret (never shown: "set" or not), reCAPTCHA's minimum score, and what a failure does. */
export function CaptchaGroup(props: GroupProps) {
  const { fields } = props;
  const provider = fields.watch('captcha.provider');
  const captcha = fields.watch('captcha');
  return (
    <Group {...props} name="captcha" title="Captcha">
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
