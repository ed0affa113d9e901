import { SubjectAccessRequestSchema } from '@formgate/contracts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { fieldOf } from '../../components/form-field.ts';
import { InlineForm, Panel } from '../../components/panel.tsx';
import { Button, TextField } from '../../components/ui.tsx';
import { useSubjectAccess } from './privacy.mutations.ts';
import type { SubjectAccessRequest } from './privacy.queries.ts';
import { type SubjectAccessExport, SubjectAccessView } from './subject-access-view.tsx';

/**
 * "Export a person's data": an address, then what the organization holds about it (a summary, the whole answer as a
 * JSON download, and the files' short-lived links), held in this component's state until dismissed (the address
 * too), an erasure is made on the page, or the page is left.
 */
export function SubjectAccessPanel() {
  const [exported, setExported] = useState<SubjectAccessExport | null>(null);
  const form = useForm<SubjectAccessRequest>({
    resolver: zodResolver(SubjectAccessRequestSchema),
    defaultValues: { email: '' },
  });
  const access = useSubjectAccess({ onSuccess: (dto, body) => setExported({ dto, email: body.email }) });
  return (
    <Panel
      title="Export a person's data"
      description="When someone asks what this organization holds about them, enter their email address. Formgate finds every submission in which it appears, erasing nothing, and gives you the whole of it to send on."
    >
      <InlineForm
        label="Export a person's data"
        onSubmit={form.handleSubmit((v) => {
          setExported(null);
          access.mutate({ email: v.email.trim() });
        })}
      >
        <TextField
          className="sm:flex-1"
          label="Email address"
          type="email"
          autoComplete="off"
          {...fieldOf(form, 'email')}
        />
        <Button type="submit" variant="secondary" disabled={access.isPending}>
          {access.isPending ? 'Exporting…' : 'Export data'}
        </Button>
      </InlineForm>
      {exported ? (
        <div className="flex flex-col gap-2">
          <SubjectAccessView exported={exported} />
          <div>
            <Button
              variant="ghost"
              onClick={() => {
                setExported(null);
                form.reset({ email: '' });
              }}
            >
              Dismiss export
            </Button>
          </div>
        </div>
      ) : null}
    </Panel>
  );
}
