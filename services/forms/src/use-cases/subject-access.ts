import type { OrgScope, SubjectAccessDto } from '@formgate/contracts';
import type { Clock, PrivacyKeys } from '@formgate/kit';
import type { FileLinks } from '../files/file-links.ts';
import type { Erasures } from '../store/erasures.ts';
import type { FormRepository } from '../store/form-repository.ts';
import type { SubmissionReadModel } from '../store/submission-read-model.ts';

export interface SubjectAccessDeps {
  erasures: Erasures;
  forms: Pick<FormRepository, 'getForm'>;
  submissions: Pick<SubmissionReadModel, 'getSubmission'>;
  privacy: PrivacyKeys;
  clock: Clock;
  /** Signs file links; absent: files are listed without one. */
  links?: FileLinks;
}

/**
 * Everything the organization holds about `email` (issue 31's subject access export): the submissions an erasure of
 * it would erase, each with its form's name, its fields and a short-lived link per file. Reads only.
 */
export async function subjectAccess(
  deps: SubjectAccessDeps,
  scope: OrgScope,
  email: string,
): Promise<SubjectAccessDto> {
  const found = await deps.erasures.findByAddressKeys(scope, deps.privacy.addressKeys(email));
  const now = deps.clock.now();
  const formNames = new Map<string, string>();
  const submissions: SubjectAccessDto['submissions'] = [];
  for (const s of found) {
    const record = await deps.submissions.getSubmission(scope, s.formId, s.id);
    if (!record) continue; // erased or deleted meanwhile
    if (!formNames.has(s.formId)) formNames.set(s.formId, (await deps.forms.getForm(scope, s.formId))?.name ?? '');
    submissions.push({
      id: record.id,
      formId: record.formId,
      formName: formNames.get(s.formId) ?? '',
      createdAt: record.createdAt,
      spam: record.spam.isSpam,
      held: record.held,
      fields: record.fields.map((f) => ({ name: f.name, value: f.value })),
      files: record.files.map((f) => {
        const link = deps.links?.sign(
          { orgId: scope.orgId, formId: record.formId, submissionId: record.id, blobKey: f.blobKey },
          now.getTime(),
        );
        const { field, filename, contentType, size } = f;
        return {
          field,
          filename,
          contentType,
          size,
          ...(link ? { url: `/api/v1/files/${link.token}`, expiresAt: link.expiresAt } : {}),
        };
      }),
    });
  }
  return {
    type: 'subject-access/1',
    orgId: scope.orgId,
    addressKey: deps.privacy.addressKey(email),
    generatedAt: now.toISOString(),
    submissions,
  };
}
