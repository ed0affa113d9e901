import type { FormView, OrgScope, StoredSubmission } from './records.ts';

/**
 * What notifications keeps of other services' data. Guarantees (checked by `notification-views.contract.ts`):
 *
 * - `applyForm` keeps, per form, the highest version it was given; an older or equal version changes nothing.
 * - `deleteForm` forgets the form: `getFormUnscoped` answers `'deleted'` from then on (null: never seen), and a
 *   version not above the deleted one does not bring it back.
 * - `getForm(scope, id)` and `getSubmission(scope, id)` answer only a record of `scope.orgId`: another
 *   organization's form or submission, like a deleted form, reads as null. Both by primary key.
 * - `saveSubmissions` keeps the first copy of each submission (a copy already stored, or a second one in the list,
 *   changes nothing), in one round trip; `deleteSubmission` forgets one (its deliveries stay, as the log).
 */
export interface NotificationViews {
  applyForm(form: FormView): Promise<void>;
  deleteForm(formId: string, version: number): Promise<void>;
  /** The organization's form, null when it is unknown, deleted or another organization's (the API's read). */
  getForm(scope: OrgScope, formId: string): Promise<FormView | null>;
  /**
   * Internal, never for the API: the form by id alone, across organizations, telling a deleted form (`'deleted'`)
   * from one not seen yet (null). For the consumer planning a batch of submissions (it waits for a form not seen
   * yet) and for the gateway's `/internal/settled`, which names a form by id only.
   */
  getFormUnscoped(formId: string): Promise<FormView | 'deleted' | null>;
  saveSubmissions(submissions: StoredSubmission[]): Promise<void>;
  /** The copy of a submission of the organization, null when there is none (or it is another organization's). */
  getSubmission(scope: OrgScope, submissionId: string): Promise<StoredSubmission | null>;
  deleteSubmission(submissionId: string): Promise<void>;
}
