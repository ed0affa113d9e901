import { zodResolver } from '@hookform/resolvers/zod';
import type { ReactNode } from 'react';
import { type FieldValues, type UseFormReturn, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { SubmitButton } from './ui.tsx';

/** A settings form's fields: checked by `schema`, showing `values` (again whenever they change on the server). */
export function useSettingsForm<T extends FieldValues>(schema: z.ZodType<T, T>, values: T): UseFormReturn<T> {
  return useForm<T>({ resolver: zodResolver(schema), values });
}

/**
 * A settings form: `children` are its fields, read-only (the button too) without `canUpdate`; the button says
 * "Saving…" while `saving`, and with `onlyChanges` waits for a change.
 */
export function SettingsForm<T extends FieldValues>(props: {
  fields: UseFormReturn<T>;
  onSave: (values: T) => void;
  saving: boolean;
  submitLabel: string;
  canUpdate?: boolean;
  onlyChanges?: boolean;
  /** Above the fields (why they are read-only). */
  notice?: ReactNode;
  children: ReactNode;
}) {
  const { fields, canUpdate = true } = props;
  return (
    <form noValidate className="flex flex-col gap-4" onSubmit={fields.handleSubmit((v) => props.onSave(v))}>
      {props.notice}
      <fieldset disabled={!canUpdate} className="flex min-w-0 flex-col gap-4">
        {props.children}
        <div>
          <SubmitButton
            pending={props.saving}
            pendingLabel="Saving…"
            disabled={!canUpdate || (props.onlyChanges === true && !fields.formState.isDirty)}
          >
            {props.submitLabel}
          </SubmitButton>
        </div>
      </fieldset>
    </form>
  );
}
