import type { SpamSettings } from '@formgate/contracts';
import type { ReactNode } from 'react';
import { SettingsForm, useSettingsForm } from '../../components/settings-form.tsx';
import {
  SpamFormSchema,
  type SpamFormValues,
  type SpamSettingsRead,
  type SpamSettingsRequest,
  spamRequestOf,
  spamValuesOf,
} from './spam-settings.ts';
import { SpamSettingsFields } from './spam-settings-fields.tsx';

/**
 * The editor as a form of its own, for a form's spam settings or the organization's defaults: `own` (the saved
 * overrides) shown over `inherited`, saved as a whole through `onSave`; read-only without `canUpdate`.
 */
export function SpamSettingsForm(props: {
  own: SpamSettingsRead | null;
  inherited: SpamSettings;
  inheritLabel: string;
  allowedOrigins?: string[];
  canUpdate: boolean;
  /** Shown above the fields (why they are read-only). */
  notice?: ReactNode;
  submitLabel: string;
  saving: boolean;
  onSave: (spam: SpamSettingsRequest | null) => void;
}) {
  const { own, inherited, inheritLabel, allowedOrigins, canUpdate } = props;
  const fields = useSettingsForm<SpamFormValues>(SpamFormSchema, spamValuesOf(own, inherited));
  return (
    <SettingsForm
      fields={fields}
      onSave={(v) => props.onSave(spamRequestOf(v))}
      saving={props.saving}
      submitLabel={props.submitLabel}
      canUpdate={canUpdate}
      onlyChanges
      notice={props.notice}
    >
      <SpamSettingsFields
        fields={fields}
        inherited={inherited}
        inheritLabel={inheritLabel}
        {...(allowedOrigins ? { allowedOrigins } : {})}
      />
    </SettingsForm>
  );
}
