import type { OrgScope } from '@formgate/contracts';
import { type CreateFormRequest, DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import { SlugTakenError } from '../store/form-repository.ts';
import type { FormWriteDeps } from './form-write-deps.ts';
import { checkRetentionDays, RETENTION_FIELD } from './retention.ts';
import { mergeSettings } from './update-form.ts';

/**
 * Refuses a new form when the organization already has as many as its plan allows (issue 13). Forms kept over a
 * lowered limit stay; deleting one frees a slot. Two creations at the same instant may both pass (a soft limit,
 * checked against the store, not reserved): the limit is a product rule, not a safety one.
 */
async function checkFormsLimit(deps: FormWriteDeps, scope: OrgScope): Promise<void> {
  const max = deps.formsLimit?.(scope.orgId) ?? null;
  if (max === null) return;
  const count = (await deps.forms.listForms(scope)).length;
  if (count >= max) {
    throw new AppError(
      'PLAN_LIMIT_REACHED',
      `The organization's plan allows ${max} form${max === 1 ? '' : 's'}; delete one or upgrade the plan`,
      { details: { limit: 'forms', max } },
    );
  }
}

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

export async function createForm(
  deps: FormWriteDeps,
  scope: OrgScope,
  request: CreateFormRequest,
): Promise<{ form: Form; inForce: boolean }> {
  await checkFormsLimit(deps, scope);
  checkRetentionDays(request.settings?.retentionDays, deps.retentionLimit?.(scope.orgId) ?? null, RETENTION_FIELD);
  const now = deps.clock.now().toISOString();
  const base = request.slug ?? slugify(request.name);
  const candidates = request.slug ? [base] : [base, ...Array.from({ length: 8 }, (_, i) => `${base}-${i + 2}`)];
  for (const slug of [
    ...candidates,
    `${base}-${deps.ids
      .token(4)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, 'x')}`,
  ]) {
    const form: Form = {
      id: deps.ids.next(),
      orgId: scope.orgId,
      name: request.name,
      slug,
      key: deps.ids.token(9),
      settings: mergeSettings(DEFAULT_FORM_SETTINGS, request.settings),
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    try {
      await deps.forms.insertForm(form);
      return { form, inForce: await deps.onFormChanged() };
    } catch (err) {
      if (!(err instanceof SlugTakenError)) throw err;
      if (request.slug) throw new AppError('FORMS_SLUG_TAKEN', `The slug "${slug}" is already used`);
    }
  }
  throw new AppError('FORMS_SLUG_TAKEN', 'Could not find a free slug; pass one explicitly');
}
