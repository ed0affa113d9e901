import type { OrgScope } from '@formgate/contracts';
import { type CreateFormRequest, DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { AppError, type Clock, type Ids } from '@formgate/kit';
import { type FormsStore, SlugTakenError } from '../store/forms-store.ts';
import { mergeSettings } from './update-form.ts';

export interface FormWriteDeps {
  store: FormsStore;
  clock: Clock;
  ids: Ids;
  /** Called after a form version is stored, so the outbox relay publishes it promptly. */
  onFormChanged: () => void;
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

export async function createForm(deps: FormWriteDeps, scope: OrgScope, request: CreateFormRequest): Promise<Form> {
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
      await deps.store.insertForm(form);
      deps.onFormChanged();
      return form;
    } catch (err) {
      if (!(err instanceof SlugTakenError)) throw err;
      if (request.slug) throw new AppError('FORMS_SLUG_TAKEN', `The slug "${slug}" is already used`);
    }
  }
  throw new AppError('FORMS_SLUG_TAKEN', 'Could not find a free slug; pass one explicitly');
}
