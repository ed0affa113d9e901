import { type CreateFormRequest, CreateFormRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { SubmitButton, TextField } from '../../components/ui.tsx';
import { useCreateForm } from './forms.mutations.ts';

/** The slug the server derives from a name when none is given (`slugify` in the forms service). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return slug || 'form';
}

/** `/dashboard/forms/create`: a name (and optionally a slug) → the new form's example page. */
export function FormCreateScreen() {
  const navigate = useNavigate();
  const form = useForm<CreateFormRequest>({
    resolver: zodResolver(CreateFormRequestSchema),
    defaultValues: { name: '' },
  });
  const create = useCreateForm({
    onSuccess: (created) => navigate(`/dashboard/forms/${encodeURIComponent(created.slug)}/example`),
  });
  const name = form.watch('name');
  const slug = form.watch('slug');
  const shownSlug = slug || slugify(name ?? '');
  return (
    <section className="flex max-w-lg flex-col gap-6">
      <h1 className="text-2xl font-semibold">New form</h1>
      <form
        noValidate
        className="flex flex-col gap-4"
        onSubmit={form.handleSubmit((values) =>
          create.mutate({ name: values.name, ...(values.slug ? { slug: values.slug } : {}) }),
        )}
      >
        <TextField
          label="Name"
          autoFocus
          autoComplete="off"
          error={form.formState.errors.name ? 'Give the form a name (at most 200 characters).' : undefined}
          {...form.register('name')}
        />
        <TextField
          label="Slug (optional)"
          autoComplete="off"
          placeholder={slugify(name ?? '')}
          error={
            form.formState.errors.slug
              ? 'Lowercase letters, digits and single dashes, at most 80 characters.'
              : undefined
          }
          hint={
            <>
              The form's address in the dashboard: <code>/dashboard/forms/{shownSlug}</code>
              {slug ? null : ' (a number is added if another form has it).'}
            </>
          }
          {...form.register('slug', { setValueAs: (v: string) => (v.trim() === '' ? undefined : v.trim()) })}
        />
        <div>
          <SubmitButton pending={create.isPending} pendingLabel="Creating…">
            Create form
          </SubmitButton>
        </div>
      </form>
    </section>
  );
}
