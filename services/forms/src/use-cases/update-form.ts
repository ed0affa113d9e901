import type { Form, OrgScope, UpdateFormRequest } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { FormWriteDeps } from './create-form.ts';

export async function updateForm(
  deps: FormWriteDeps,
  scope: OrgScope,
  formId: string,
  request: UpdateFormRequest,
): Promise<Form> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const current = await deps.store.getForm(scope, formId);
    if (!current) throw new AppError('FORMS_FORM_NOT_FOUND');
    const next: Form = {
      ...current,
      ...(request.name ? { name: request.name } : {}),
      settings: { ...current.settings, ...request.settings },
      updatedAt: deps.clock.now().toISOString(),
      version: current.version + 1,
    };
    if (await deps.store.replaceForm(next, current.version)) {
      deps.onFormChanged();
      return next;
    }
  }
  throw new AppError('FORMS_CONCURRENT_UPDATE', 'The form changed while updating; try again');
}
