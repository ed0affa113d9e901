import type { Form, OrgScope } from '@formgate/contracts';
import type { BlockedCountMethods } from './blocked-counts.ts';
import type { HeldSubmissionMethods } from './held-submissions.ts';
import type { SubmissionChangeMethods } from './submission-changes.ts';
import type { StoredSubmission, SubmissionRecord } from './submission-record.ts';

/** A place in a newest-first list: the position of the last item of the previous page. */
export interface SubmissionCursor {
  seq: number;
}

/**
 * What a filtered list, a search or an export keeps. Every given criterion must hold. `from`/`to` are ISO-8601 UTC
 * with milliseconds (`Date.toISOString()`), compared with `createdAt`: `from` inclusive, `to` exclusive.
 * `terms` are normalized words (`searchTerms` in `search-terms.ts`); each must be a whole word of some field value.
 */
export interface SubmissionFilter {
  spam?: boolean;
  held?: boolean;
  from?: string;
  to?: string;
  terms?: string[];
}

/** A form deleted (through the API, or with its organization), waiting in the outbox until `form.deleted` reached the log. */
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
 *   It must not run concurrently for one form (the consumer of a partition keyed by form id is its one writer).
 * - A form's list is newest first by storage: a call's new submissions come before everything stored earlier, and
 *   among themselves newest first by (`createdAt`, `id`). Paging with the last item's `seq` as the cursor returns
 *   every submission stored before the first page exactly once, whatever is stored meanwhile (newer ones never
 *   land behind a cursor). Each page and each count costs the same at any depth and any size of the form.
 * - Field lists are stored and returned in order, byte for byte; names such as `a.b`, `$where` or `__proto__` are data.
 * - `purgeOrganization` is idempotent, touches no other organization, and leaves a `FormDeletion` for every form
 *   it deleted before it deletes the form, so the deletion is published even if it fails half-way and is retried.
 */
export interface FormsStore extends SubmissionChangeMethods, HeldSubmissionMethods, BlockedCountMethods {
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
  /** Stores submissions not seen before, in one batch write; returns how many were new. */
  insertSubmissions(records: SubmissionRecord[]): Promise<number>;
  /** Newest first (see above), strictly older than `after` when given. */
  listSubmissions(
    scope: OrgScope,
    formId: string,
    page: { limit: number; after?: SubmissionCursor },
  ): Promise<StoredSubmission[]>;
  getSubmission(scope: OrgScope, formId: string, submissionId: string): Promise<StoredSubmission | null>;
  /** Like `listSubmissions` (same order, same cursor), keeping only the submissions `filter` matches. */
  findSubmissions(
    scope: OrgScope,
    formId: string,
    query: { filter: SubmissionFilter; limit: number; after?: SubmissionCursor },
  ): Promise<StoredSubmission[]>;
  /**
   * Every submission of the form `filter` matches, in batches (of a few hundred) read as the caller consumes them
   * (memory stays flat at any size), in list order — except on FerretDB 1.24, where it is storage order (ADR 0022).
   * Stops early when the caller does.
   */
  exportSubmissions(scope: OrgScope, formId: string, filter: SubmissionFilter): AsyncIterable<StoredSubmission[]>;
  /** Every field name stored for the form, in the order first seen (what an export's columns are). */
  listFieldNames(scope: OrgScope, formId: string): Promise<string[]>;
  /** The form's `submissionCount` (held submissions left out). */
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
