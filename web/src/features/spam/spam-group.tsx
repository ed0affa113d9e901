import type { SpamSettings } from '@formgate/contracts';
import type { ReactNode } from 'react';
import type { UseFormReturn } from 'react-hook-form';
import { inheritedFieldsOf, type SpamFormValues, type SpamKey } from './spam-settings.ts';

/** What every group gets: the editor's form, the fallback values and the "use the default" label. */
export interface GroupProps {
  fields: UseFormReturn<SpamFormValues>;
  inherited: SpamSettings;
  inheritLabel: string;
}

/** One key: its "use the default" box and its fields, disabled (showing the fallback's value) while inherited. */
export function Group(props: GroupProps & { name: SpamKey; title: string; children: ReactNode }) {
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
