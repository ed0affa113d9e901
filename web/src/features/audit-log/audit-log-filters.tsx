import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { fieldOf } from '../../components/form-field.ts';
import { SelectField } from '../../components/panel.tsx';
import { Button, TextField } from '../../components/ui.tsx';
import { AUDIT_TYPE_GROUPS } from './audit-entries.ts';
import { type AuditLogFilters, hasFilters } from './audit-log.queries.ts';

const isEmail = (text: string) => z.email().max(320).safeParse(text).success;

/** The filter form's fields, as typed (empty: not filtered). */
const FiltersFormSchema = z
  .object({
    type: z.string(),
    actor: z.string().refine((v) => v.trim() === '' || isEmail(v.trim()), 'Enter a valid email address'),
    from: z.string(),
    to: z.string(),
  })
  .refine((v) => !v.from || !v.to || v.from <= v.to, { path: ['to'], message: 'Choose a day on or after “From”' });
type FiltersFormValues = z.infer<typeof FiltersFormSchema>;

const valuesOf = (f: AuditLogFilters): FiltersFormValues => ({
  type: f.type ?? '',
  actor: f.actor ?? '',
  from: f.from ?? '',
  to: f.to ?? '',
});

const filtersOfValues = (v: FiltersFormValues): AuditLogFilters => ({
  ...(v.type ? { type: v.type } : {}),
  ...(v.actor.trim() ? { actor: v.actor.trim() } : {}),
  ...(v.from ? { from: v.from } : {}),
  ...(v.to ? { to: v.to } : {}),
});

/**
 * The log's filters: a type (or a group of types), who did it, and the days from and to (both included). Applied
 * together; the screen keeps them in its address. Give it a `key` of the filters so it starts again when they change.
 */
export function AuditLogFilterForm(props: { filters: AuditLogFilters; onChange: (f: AuditLogFilters) => void }) {
  const form = useForm<FiltersFormValues>({
    resolver: zodResolver(FiltersFormSchema),
    defaultValues: valuesOf(props.filters),
  });
  return (
    <search>
      <form
        noValidate
        aria-label="Filter the audit log"
        className="flex flex-col gap-3"
        onSubmit={form.handleSubmit((v) => props.onChange(filtersOfValues(v)))}
      >
        <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
          <SelectField label="Type" {...form.register('type')}>
            <option value="">All entries</option>
            {AUDIT_TYPE_GROUPS.map((group) => (
              <optgroup key={group.label} label={group.label}>
                {group.any ? <option value={group.types.map(([t]) => t).join(',')}>{group.any}</option> : null}
                {group.types.map(([type, label]) => (
                  <option key={type} value={type}>
                    {label}
                  </option>
                ))}
              </optgroup>
            ))}
          </SelectField>
          <TextField label="Who (email address)" type="email" autoComplete="off" {...fieldOf(form, 'actor')} />
          <TextField label="From" type="date" {...fieldOf(form, 'from')} />
          <TextField label="To" type="date" {...fieldOf(form, 'to')} />
        </div>
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="secondary">
            Apply filters
          </Button>
          {hasFilters(props.filters) ? (
            <Button variant="ghost" onClick={() => props.onChange({})}>
              Clear filters
            </Button>
          ) : null}
        </div>
      </form>
    </search>
  );
}
