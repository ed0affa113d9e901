import type { SpamSettings } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import type { ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { SubmitButton } from '../../components/ui.tsx';
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
  const fields = useForm<SpamFormValues>({
    resolver: zodResolver(SpamFormSchema),
    values: spamValuesOf(own, inherited),
  });
  return (
    <form
      noValidate
      className="flex flex-col gap-4"
      onSubmit={fields.handleSubmit((v) => props.onSave(spamRequestOf(v)))}
    >
      {props.notice}
      <fieldset disabled={!canUpdate} className="flex min-w-0 flex-col gap-4">
        <SpamSettingsFields
          fields={fields}
          inherited={inherited}
          inheritLabel={inheritLabel}
          {...(allowedOrigins ? { allowedOrigins } : {})}
        />
        <div>
          <SubmitButton
            pending={props.saving}
            pendingLabel="Saving…"
            disabled={!canUpdate || !fields.formState.isDirty}
          >
            {props.submitLabel}
          </SubmitButton>
        </div>
      </fieldset>
    </form>
  );
}
