import type { Form, OrgScope } from '@formgate/contracts';
import type { FormDeletion } from './records.ts';

export class SlugTakenError extends Error {
  constructor(readonly slug: string) {
    super(`slug ${slug} is taken`);
  }
}

/**
 * Forms, their outbox (versions not yet published to `forms.form`, deletions not yet announced) and the end of a
 * form's life: deleting it, purging what it stored, purging an organization. Guarantees every adapter keeps:
 * - Reads with an `OrgScope` never return another organization's form (they answer `null` / empty).
 * - Every version written is listed by `listUnpublishedForms` until `markFormPublished` confirms it or a newer one;
 *   a write whose process dies before its outbox record is found again (ADR 4).
 * - `deleteForm` removes the form at once (reads answer `null`) and leaves a `FormDeletion` in the outbox;
 *   `purgeDeletedForm` then removes what the form had stored, idempotently, also what was stored for it after.
 * - `purgeOrganization` is idempotent, touches no other organization, and leaves a `FormDeletion` for every form
 *   it deleted before it deletes the form, so the deletion is published even if it fails half-way and is retried.
 *   It forgets the organization's submissions, counters, changes, field names, blocked counts and release ledger.
 */
export interface FormRepository {
  /** Inserts a new form; throws `SlugTakenError` when the organization already has the slug. */
  insertForm(form: Form): Promise<void>;
  getForm(scope: OrgScope, formId: string): Promise<Form | null>;
  getFormBySlug(scope: OrgScope, slug: string): Promise<Form | null>;
  /** The organization's forms, oldest first. */
  listForms(scope: OrgScope): Promise<Form[]>;
  /** Replaces the form only if its stored version is `expectedVersion`; returns whether it did. */
  replaceForm(form: Form, expectedVersion: number): Promise<boolean>;
  /**
   * Deletes the form (only the organization's); its deletion goes to the outbox. Returns the version `form.deleted`
   * is published with (the form's last version + 1), or null when the organization has no such form.
   */
  deleteForm(scope: OrgScope, formId: string): Promise<number | null>;
  /** Forms whose current version has not been confirmed as published to `forms.form` (the outbox). */
  listUnpublishedForms(limit: number): Promise<Form[]>;
  /** Records that `version` of the form reached the log; an older version never overwrites a newer mark. */
  markFormPublished(formId: string, version: number): Promise<void>;
  /** Deletions not yet confirmed as published to `forms.form` (the outbox). */
  listUnpublishedDeletions(limit: number): Promise<FormDeletion[]>;
  /** Records that the form's deletion reached the log: nothing of the form is kept after this. */
  markDeletionPublished(formId: string): Promise<void>;
  /** The blob keys of every file a form's stored submissions still reference (for a form being purged). */
  listFormBlobKeys(formId: string): Promise<string[]>;
  /**
   * Completes a form's deletion: removes the form if it is still there, and every submission, counter, pending
   * change, field name and blocked count it has; idempotent. Only for a form whose deletion is in the outbox, or
   * that is gone already.
   */
  purgeDeletedForm(formId: string): Promise<void>;
  /**
   * Deletes the organization's forms and everything they stored, its default retention and its erasure receipts;
   * each deleted form goes to the outbox as a `FormDeletion`. Returns how many forms it deleted (0 when repeated).
   */
  purgeOrganization(scope: OrgScope): Promise<number>;
}
