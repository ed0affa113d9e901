import { useQuery } from '@tanstack/react-query';
import { Navigate } from 'react-router';
import { submissionsQuery } from '../../features/forms/forms.queries.ts';
import { useForm } from './form-layout.tsx';

/** Goes to the newest submission; a form without any shows how to set it up. */
export function Component() {
  const form = useForm();
  const submissions = useQuery(submissionsQuery(form.id, 1));
  if (submissions.isPending) return <p role="status">Loading submissions…</p>;
  if (submissions.isError) throw submissions.error;
  const first = submissions.data.data[0];
  if (first) return <Navigate to={encodeURIComponent(first.id)} replace />;
  return (
    <section className="flex flex-col gap-2">
      <h1 className="text-2xl font-semibold">{form.name}</h1>
      <p>No submissions, follow the examples to setup your form.</p>
    </section>
  );
}
