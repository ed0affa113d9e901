import { setTimeout as sleep } from 'node:timers/promises';
import {
  DEFAULT_FORM_NOTIFICATIONS,
  type Form,
  type FormSettings,
  type FormSettingsPatch,
  type OrgScope,
  type UpdateFormRequest,
} from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { FormWriteDeps } from './form-write-deps.ts';
import { checkRetentionDays, RETENTION_FIELD } from './retention.ts';
import { mergeFormSpam } from './spam-settings.ts';

const NOT_IN_FORCE = 'The change is saved but not yet in force; repeat the request shortly';

export async function updateForm(
  deps: FormWriteDeps,
  scope: OrgScope,
  formId: string,
  request: UpdateFormRequest,
): Promise<Form> {
  checkRetentionDays(request.settings?.retentionDays, deps.retentionLimit?.(scope.orgId) ?? null, RETENTION_FIELD);
  // A concurrent change wins its version first (a claim on the Mongo store): read again after a short pause.
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await sleep(10 * 2 ** attempt);
    const current = await deps.forms.getForm(scope, formId);
    if (!current) throw new AppError('FORMS_FORM_NOT_FOUND');
    const next: Form = {
      ...current,
      ...(request.name ? { name: request.name } : {}),
      settings: mergeSettings(current.settings, request.settings),
      updatedAt: deps.clock.now().toISOString(),
      version: current.version + 1,
    };
    if (await deps.forms.replaceForm(next, current.version)) {
      // Answered only once in the log (read your own settings): the stored change goes out later either way.
      if (!(await deps.onFormChanged())) throw new AppError('UPSTREAM_UNAVAILABLE', NOT_IN_FORCE);
      return next;
    }
  }
  throw new AppError('FORMS_CONCURRENT_UPDATE', 'The form changed while updating; try again');
}

/**
 * A PATCH's settings over the current ones: absent keys keep their value, `notifications` and `spam` merge key by
 * key (`spam: null` drops the form's own spam settings; a captcha without a secret keeps the stored one).
 */
export function mergeSettings(current: FormSettings, patch: FormSettingsPatch = {}): FormSettings {
  const { notifications, spam, ...rest } = patch;
  return {
    ...current,
    ...rest,
    notifications: { ...DEFAULT_FORM_NOTIFICATIONS, ...current.notifications, ...notifications },
    spam: mergeFormSpam(current.spam ?? null, spam),
  };
}
