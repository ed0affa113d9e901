import type { FormView, StoredSubmission } from './records.ts';

/**
 * What notifications keeps of other services' data. Guarantees (checked by `notification-views.contract.ts`):
 *
 * - `applyForm` keeps, per form, the highest version it was given; an older or equal version changes nothing.
 * - `deleteForm` forgets the form: `getForm` answers `'deleted'` from then on (null: never seen), and a version not
 *   above the deleted one does not bring it back.
 * - `saveSubmissions` keeps the first copy of each submission (a copy already stored, or a second one in the list,
 *   changes nothing), in one round trip; `deleteSubmission` forgets one (its deliveries stay, as the log).
 */
export interface NotificationViews {
  applyForm(form: FormView): Promise<void>;
  deleteForm(formId: string, version: number): Promise<void>;
  getForm(formId: string): Promise<FormView | 'deleted' | null>;
  saveSubmissions(submissions: StoredSubmission[]): Promise<void>;
  getSubmission(submissionId: string): Promise<StoredSubmission | null>;
  deleteSubmission(submissionId: string): Promise<void>;
}
