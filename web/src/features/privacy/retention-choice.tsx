import type { ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { TextField } from '../../components/ui.tsx';

/**
 * A retention choice of a settings form: `otherLabel` (until deleted, or the organization's default; `other`) or a
 * number of days (`days`), the days field enabled only for the latter. `mode` registers the two radio buttons.
 */
export function RetentionChoice(props: {
  legend: string;
  otherLabel: string;
  daysLabel: string;
  mode: UseFormRegisterReturn;
  daysField: UseFormRegisterReturn & { error: string | undefined };
  /** Days are chosen: the field can be typed in. */
  daysChosen: boolean;
  hint?: ReactNode;
}) {
  return (
    <fieldset className="flex min-w-0 flex-col gap-3">
      <legend className="mb-2 text-sm font-medium">{props.legend}</legend>
      <label className="flex items-center gap-3 text-sm">
        <input type="radio" className="size-4" value="other" {...props.mode} />
        {props.otherLabel}
      </label>
      <label className="flex items-center gap-3 text-sm">
        <input type="radio" className="size-4" value="days" {...props.mode} />
        {props.daysLabel}
      </label>
      <TextField
        className="sm:max-w-48"
        label="Days to keep submissions"
        inputMode="numeric"
        hint={props.hint}
        {...props.daysField}
        // Its error (from an earlier save) is not this choice's once the other is chosen.
        error={props.daysChosen ? props.daysField.error : undefined}
        disabled={!props.daysChosen}
      />
    </fieldset>
  );
}
