import type { FieldValues, Path, UseFormReturn } from 'react-hook-form';

/** A react-hook-form field's registration with its error message, for `<TextField {...fieldOf(form, 'email')} />`. */
export function fieldOf<T extends FieldValues>(form: UseFormReturn<T>, name: Path<T>) {
  const { error } = form.getFieldState(name, form.formState);
  return { ...form.register(name), error: error?.message };
}
