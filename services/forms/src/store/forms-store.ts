import type { Form, OrgScope, SpamVerdict, SubmissionField, SubmissionFile } from '@formgate/contracts';

export interface SubmissionRecord {
  id: string;
  formId: string;
  orgId: string;
  /** ISO-8601 UTC with milliseconds; the sort key of the list, with `id` as the tie-breaker. */
  createdAt: string;
  fields: SubmissionField[];
  files: SubmissionFile[];
  spam: SpamVerdict;
  held: boolean;
}

/** A position in a newest-first list: the last item of the previous page. */
export interface SubmissionCursor {
  createdAt: string;
  id: string;
}

/** A form deleted with its organization, waiting in the outbox until `form.deleted` reached the log. */
export interface FormDeletion {
  formId: string;
  orgId: string;
  key: string;
  /** The deleted form's last version plus one, so views order the deletion after every snapshot. */
  version: number;
}

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug ${slug} is taken`);
  }
}

/**
 * The forms service's data: forms (with an embedded outbox marker) and the submissions read model.
 * Guarantees every adapter keeps:
 * - Reads with a `OrgScope` never return another organization's data (they answer `null` / empty).
 * - `insertSubmissions` is idempotent by submission id, and afterwards `countSubmissions` equals the number of
 *   distinct submissions stored for the form, even if a previous call failed half-way (redelivery repairs it).
 * - Field lists are stored and returned in order, byte for byte; names such as `a.b`, `$where` or `__proto__` are data.
 * - `purgeOrganization` is idempotent, touches no other organization, and leaves a `FormDeletion` for every form
 *   it deleted before it deletes the form, so the deletion is published even if it fails half-way and is retried.
 */
export interface FormsStore {
  /** Inserts a new form; throws `SlugTakenError` when the organization already has the slug. */
  insertForm(form: Form): Promise<void>;
  getForm(scope: OrgScope, formId: string): Promise<Form | null>;
  getFormBySlug(scope: OrgScope, slug: string): Promise<Form | null>;
  /** The organization's forms, oldest first. */
  listForms(scope: OrgScope): Promise<Form[]>;
  /** Replaces the form only if its stored version is `expectedVersion`; returns whether it did. */
  replaceForm(form: Form, expectedVersion: number): Promise<boolean>;
  /** Forms whose current version has not been confirmed as published to `forms.form` (the outbox). */
  listUnpublishedForms(limit: number): Promise<Form[]>;
  /** Records that `version` of the form reached the log; an older version never overwrites a newer mark. */
  markFormPublished(formId: string, version: number): Promise<void>;
  /** Stores submissions not seen before; returns how many were new. */
  insertSubmissions(records: SubmissionRecord[]): Promise<number>;
  /** Newest first, strictly after `after` when given. */
  listSubmissions(
    scope: OrgScope,
    formId: string,
    page: { limit: number; after?: SubmissionCursor },
  ): Promise<SubmissionRecord[]>;
  getSubmission(scope: OrgScope, formId: string, submissionId: string): Promise<SubmissionRecord | null>;
  countSubmissions(scope: OrgScope, formId: string): Promise<number>;
  /**
   * Deletes the organization's forms, submissions and counters; each deleted form goes to the outbox as a
   * `FormDeletion`. Returns how many forms it deleted (0 when repeated).
   */
  purgeOrganization(scope: OrgScope): Promise<number>;
  /** Deletions not yet confirmed as published to `forms.form` (the outbox). */
  listUnpublishedDeletions(limit: number): Promise<FormDeletion[]>;
  /** Records that the form's deletion reached the log: nothing of the form is kept after this. */
  markDeletionPublished(formId: string): Promise<void>;
  close(): Promise<void>;
}
