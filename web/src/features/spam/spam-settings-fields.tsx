import type { SpamSettings } from '@formgate/contracts';
import type { UseFormReturn } from 'react-hook-form';
import { fieldOf } from '../../components/form-field.ts';
import { SelectField } from '../../components/panel.tsx';
import { CheckboxField, TextAreaField, TextField } from '../../components/ui.tsx';
import { CaptchaGroup } from './spam-captcha-group.tsx';
import { Group, type GroupProps } from './spam-group.tsx';
import type { SpamFormValues } from './spam-settings.ts';

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
  const group = { fields: props.fields, inherited: props.inherited, inheritLabel: props.inheritLabel };
  return (
    <div className="flex flex-col gap-4">
      <TimeTrapGroup {...group} />
      <OriginsGroup {...group} allowedOrigins={props.allowedOrigins} />
      <CaptchaGroup {...group} />
      <RateLimitGroup {...group} />
      <RulesGroup {...group} />
      <ShadowGroup {...group} />
    </div>
  );
}

/** The minimum time between the signed render timestamp and the submission. */
function TimeTrapGroup(props: GroupProps) {
  const { fields } = props;
  return (
    <Group {...props} name="timeTrapSeconds" title="Time-trap">
      <TextField
        label="Minimum seconds between rendering and sending"
        inputMode="numeric"
        hint="A submission sent sooner after its signed render timestamp is spam; 0 turns it off. Needs the page's timestamp field (see the examples)."
        {...fieldOf(fields, 'timeTrapSeconds.value')}
      />
    </Group>
  );
}

/** What happens to a request from an origin the form does not allow, and which origins it allows. */
function OriginsGroup(props: GroupProps & { allowedOrigins: string[] | undefined }) {
  const { fields, allowedOrigins } = props;
  return (
    <Group {...props} name="origins" title="Allowed origins check">
      <SelectField label="A request from an origin the form does not allow" {...fields.register('origins.value')}>
        <option value="off">is accepted (off)</option>
        <option value="flag">is stored as spam (flag)</option>
        <option value="reject">is refused with 403 BLOCKED (reject)</option>
      </SelectField>
      {allowedOrigins === undefined ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          Applies to the forms that list allowed origins in their settings.
        </p>
      ) : allowedOrigins.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          This form lists no allowed origins yet (Settings above), so nothing is checked.
        </p>
      ) : (
        <div className="flex flex-col gap-1 text-sm">
          <p className="text-zinc-600 dark:text-zinc-400">Checked against the form's allowed origins:</p>
          <ul aria-label="Allowed origins in use" className="list-disc pl-5 font-mono text-xs">
            {allowedOrigins.map((o) => (
              <li key={o} className="break-all">
                {o}
              </li>
            ))}
          </ul>
        </div>
      )}
    </Group>
  );
}

/** Requests per minute per IP address, form and organization. */
function RateLimitGroup(props: GroupProps) {
  const { fields } = props;
  return (
    <Group {...props} name="rateLimit" title="Rate limits">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Requests per minute; 0 means no limit. Over a limit: 429 RATE_LIMITED with Retry-After, nothing stored.
      </p>
      <div className="grid gap-3 sm:grid-cols-3">
        <TextField label="Per IP address" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perIpPerMinute')} />
        <TextField label="Per form" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perFormPerMinute')} />
        <TextField label="Per organization" inputMode="numeric" {...fieldOf(fields, 'rateLimit.perOrgPerMinute')} />
      </div>
    </Group>
  );
}

/** Blocked words and domains, links, the score threshold, disposable addresses. */
function RulesGroup(props: GroupProps) {
  const { fields } = props;
  return (
    <Group {...props} name="rules" title="Content rules">
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
  );
}

/** Shadow mode: the layers only record what they would have done. */
function ShadowGroup(props: GroupProps) {
  const { fields } = props;
  return (
    <Group {...props} name="shadow" title="Shadow mode">
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
  );
}
