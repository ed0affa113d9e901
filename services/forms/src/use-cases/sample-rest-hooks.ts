import {
  buildRestHookBody,
  type OrgScope,
  type RestHookSampleDto,
  type RestHookSampleQuery,
} from '@formgate/contracts';
import { AppError, type Clock } from '@formgate/kit';
import type { FormRepository } from '../store/form-repository.ts';
import type { StoredSubmission, SubmissionFilter } from '../store/records.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

/** Most bodies in a sample: enough for a platform to see which fields vary, few enough to read at a glance. */
export const REST_HOOK_SAMPLE_SIZE = 3;
/** Most field names in a made-up example; names seen past these are left out of it. */
const EXAMPLE_FIELDS = 50;
const DEFAULT_EXAMPLE_FIELDS = ['email', 'message'];

export interface SampleRestHooksDeps {
  forms: Pick<FormRepository, 'getForm'>;
  submissions: Pick<SubmissionReadModel, 'findSubmissions' | 'listFieldNames'>;
  clock: Clock;
}

/** The submissions that would have given `event`: spam ones for `submission.spam`, any but held for deletions. */
const filterFor = (event: RestHookSampleQuery['event']): SubmissionFilter => {
  if (event === 'submission.deleted') return { held: false };
  return { held: false, spam: event === 'submission.spam' };
};

/**
 * `GET /api/v1/hooks/sample`: what a `rest-hook` delivery of `event` would carry for the form's most recent
 * submissions (`buildRestHookBody`, as notifications build it), or one made-up body marked `example` when none has
 * its content (none yet, or a no-store form's content already dropped), with the field names the form has received.
 */
export async function sampleRestHooks(
  deps: SampleRestHooksDeps,
  scope: OrgScope,
  { formId, event }: RestHookSampleQuery,
): Promise<RestHookSampleDto> {
  const form = await deps.forms.getForm(scope, formId);
  if (!form) throw new AppError('FORMS_FORM_NOT_FOUND');
  const ref = { id: form.id, name: form.name };
  const recent = await deps.submissions.findSubmissions(scope, form.id, {
    filter: filterFor(event),
    limit: REST_HOOK_SAMPLE_SIZE,
  });
  const kept = recent.filter((s) => s.contentDropped !== true);
  const bodyOf = (s: Pick<StoredSubmission, 'id' | 'createdAt' | 'fields' | 'files'>) =>
    buildRestHookBody({ event, form: ref, submission: s, content: event === 'submission.deleted' ? null : s });
  if (kept.length > 0) return { data: kept.map(bodyOf), example: false };
  const names = (await deps.submissions.listFieldNames(scope, form.id)).slice(0, EXAMPLE_FIELDS);
  const fields = (names.length > 0 ? names : DEFAULT_EXAMPLE_FIELDS).map((name) => ({
    name,
    value: `Example ${name}`,
  }));
  const example = { id: 'example', createdAt: deps.clock.now().toISOString(), fields, files: [] };
  return { data: [bodyOf(example)], example: true };
}
