import { useQuery } from '@tanstack/react-query';
import { Navigate, Outlet, useOutletContext, useParams } from 'react-router';
import { type FormDto, formBySlugQuery } from '../../features/forms/forms.queries.ts';

/** `/dashboard/forms/{formSlug}`: resolves the slug to the form; an unknown slug goes back to the forms index. */
export function Component() {
  const { formSlug = '' } = useParams();
  const form = useQuery(formBySlugQuery(formSlug));
  if (form.isPending) return <p role="status">Loading form…</p>;
  if (form.isError) throw form.error;
  if (!form.data) return <Navigate to="/dashboard/forms" replace />;
  return <Outlet context={form.data satisfies FormDto} />;
}

/** The form resolved by the enclosing `forms/:formSlug` route. */
export const useForm = () => useOutletContext<FormDto>();
