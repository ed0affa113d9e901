import { DEFAULT_FORM_FILES, type FormFiles, FormFilesSchema, MAX_SUBMISSION_FILE_BYTES } from '@formgate/contracts';
import { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { Section } from '../../components/panel.tsx';
import { SettingsForm, useSettingsForm } from '../../components/settings-form.tsx';
import { TextAreaField, TextField } from '../../components/ui.tsx';
import { useUpdateFormFiles } from './forms.mutations.ts';
import type { FormDto } from './forms.queries.ts';

/** The largest file a form may take, in MB: the deployment's limit (the contract's maximum). */
const MAX_FILE_MB = MAX_SUBMISSION_FILE_BYTES / (1024 * 1024);
/** How many file types a form may list (the contract's maximum). */
const MAX_FILE_TYPES = 50;

export const MAX_FILE_MB_ERROR = `A whole number of MB from 1 to ${MAX_FILE_MB}, or empty for the plan limit`;

/** The entries of the file types as typed, comma- or newline-separated, trimmed (empty ones dropped). */
const typeEntriesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((entry) => entry.trim())
    .filter(Boolean);

/** The file types as the API takes them: lowercase, each once. */
const fileTypesOf = (text: string) => [...new Set(typeEntriesOf(text).map((entry) => entry.toLowerCase()))];

/** One entry checked by the contract's own pattern (`application/pdf`, `image/*`; trimmed and lowercased). */
const isFileType = (entry: string) => FormFilesSchema.shape.allowedTypes.element.safeParse(entry).success;

/** The panel's fields as typed: `maxFileMb` empty for the plan's limit, `allowedTypes` empty for any type. */
export const FilesFormSchema = z.object({
  maxFileMb: z
    .string()
    .trim()
    .refine(
      (text) => text === '' || (/^\d+$/.test(text) && FormFilesSchema.shape.maxFileMb.safeParse(Number(text)).success),
      { error: MAX_FILE_MB_ERROR },
    ),
  allowedTypes: z.string().superRefine((text, ctx) => {
    const bad = typeEntriesOf(text).find((entry) => !isFileType(entry));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `“${bad}” is not a file type: give MIME types such as application/pdf, or image/* for every image type`,
      });
      return;
    }
    const count = fileTypesOf(text).length;
    if (count > MAX_FILE_TYPES)
      ctx.addIssue({ code: 'custom', message: `At most ${MAX_FILE_TYPES} file types (${count} given)` });
  }),
});
export type FilesFormValues = z.infer<typeof FilesFormSchema>;

const valuesOf = (files: FormFiles): FilesFormValues => ({
  maxFileMb: files.maxFileMb === null ? '' : String(files.maxFileMb),
  allowedTypes: files.allowedTypes.join(', '),
});

/** The `settings.files` of a `PATCH /api/v1/forms/{formId}` for the panel's values: both keys, always. */
export const filesRequestOf = (v: FilesFormValues): FormFiles => ({
  maxFileMb: v.maxFileMb.trim() === '' ? null : Number(v.maxFileMb.trim()),
  allowedTypes: fileTypesOf(v.allowedTypes),
});

/**
 * The form settings' "File uploads" panel (issue 33): the largest file the form takes (empty: the plan's limit) and
 * the file types it takes (empty: any). Saved on its own, `settings.files` whole, so it never resets the other
 * settings.
 */
export function FormFilesPanel({ form, canUpdate }: { form: FormDto; canUpdate: boolean }) {
  // A form stored before the setting may be answered without it: the defaults apply.
  const fields = useSettingsForm<FilesFormValues>(FilesFormSchema, valuesOf(form.settings.files ?? DEFAULT_FORM_FILES));
  const save = useUpdateFormFiles(form.id);
  return (
    <Section title="File uploads" className="flex flex-col gap-4">
      <SettingsForm
        fields={fields}
        onSave={(v) => save.mutate(filesRequestOf(v))}
        saving={save.isPending}
        submitLabel="Save file uploads"
        canUpdate={canUpdate}
      >
        <TextField
          className="sm:max-w-48"
          label="Largest file (MB)"
          type="number"
          inputMode="numeric"
          min={1}
          max={MAX_FILE_MB}
          step={1}
          placeholder="Plan limit"
          hint={`Empty: your plan's limit. At most ${MAX_FILE_MB} MB.`}
          {...fieldOf(fields, 'maxFileMb')}
        />
        <TextAreaField
          mono
          rows={2}
          label="Allowed file types"
          placeholder="application/pdf, image/*"
          hint="Empty: any type. Examples: application/pdf, image/*"
          {...fieldOf(fields, 'allowedTypes')}
        />
      </SettingsForm>
    </Section>
  );
}
