import type { FileScan, OrgScope } from '@formgate/contracts';
import type {
  StoredCounts,
  StoredDailyCount,
  StoredSubmission,
  SubmissionCursor,
  SubmissionFilter,
  SubmissionRecord,
} from './records.ts';

/**
 * The submissions read model: what `submission.received` stored, its lists, filters, search, export and counters.
 * Guarantees every adapter keeps:
 * - Reads never return another organization's data (they answer `null`, 0 or empty).
 * - `insertSubmissions` is idempotent by submission id, and afterwards `countSubmissions` equals the number of
 *   distinct submissions stored for the form, even if a previous call failed half-way (redelivery repairs it).
 *   It must not run concurrently for one form (the consumer of a partition keyed by form id is its one writer).
 * - A form's list is newest first by storage: a call's new submissions come before everything stored earlier, and
 *   among themselves newest first by (`createdAt`, `id`). Paging with the last item's `seq` as the cursor returns
 *   every submission stored before the first page exactly once, whatever is stored meanwhile (newer ones never
 *   land behind a cursor). Each page and each count costs the same at any depth and any size of the form.
 * - Field lists are stored and returned in order, byte for byte; names such as `a.b`, `$where` or `__proto__` are data.
 * - Deleted submissions (tombstones of `SubmissionChanges`) are never read; held ones are in no counter but
 *   `heldCount`. Counters include every change counted so far (`SubmissionChanges.countSubmissionChanges`).
 */
export interface SubmissionReadModel {
  /** Stores submissions not seen before, in one batch write; returns how many were new. */
  insertSubmissions(records: SubmissionRecord[]): Promise<number>;
  /** Newest first (see above), strictly older than `after` when given. */
  listSubmissions(
    scope: OrgScope,
    formId: string,
    page: { limit: number; after?: SubmissionCursor },
  ): Promise<StoredSubmission[]>;
  getSubmission(scope: OrgScope, formId: string, submissionId: string): Promise<StoredSubmission | null>;
  /**
   * A no-store form's submission that notifications are done with (issue 31): keeps its metadata (id, time,
   * position, spam verdict, held) and drops the rest — fields, files (the caller deletes their blobs first), reserved
   * fields, origin, referer, search words, CSV line, address keys — marking it `contentDropped`. Returns false when
   * there is no such live submission of the organization's form. Idempotent.
   */
  dropContent(scope: OrgScope, formId: string, submissionId: string): Promise<boolean>;
  /**
   * Sets the scan of one file of a live submission (`fileScans[blobKey]`, issue 33), leaving everything else as it
   * is. Returns false when there is no such live submission of the organization's form, or its content was dropped.
   * Idempotent; `blobKey` must have the shape of the keys Formgate generates (`checkBlobKey`).
   */
  recordFileScan(
    scope: OrgScope,
    formId: string,
    submissionId: string,
    blobKey: string,
    scan: FileScan,
  ): Promise<boolean>;
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
  /**
   * The submissions `exportSubmissions` reads, in the same order and batches, as CSV lines for the field-name columns
   * `columns` (the first `MAX_CSV_FIELD_COLUMNS` of `listFieldNames`, read before the export): each line is exactly
   * what `csvRows(columns)` writes for its submission (`store/csv-lines.ts`).
   */
  exportCsvLines(
    scope: OrgScope,
    formId: string,
    filter: SubmissionFilter,
    columns: readonly string[],
  ): AsyncIterable<string[]>;
  /**
   * Which of `blobKeys` are files of a stored submission, of any organization (the stray sweep, issue 33): a deleted
   * submission's or a dropped one's files are not. Deployment-wide, for the operator's sweep only.
   */
  fileReferences(blobKeys: readonly string[]): Promise<Set<string>>;
  /** Every field name stored for the form, in the order first seen (what an export's columns are). */
  listFieldNames(scope: OrgScope, formId: string): Promise<string[]>;
  /** The form's `submissionCount` (held submissions left out). */
  countSubmissions(scope: OrgScope, formId: string): Promise<number>;
  /** The counters of each of the organization's forms named (a form of another organization is left out). */
  getFormCounts(scope: OrgScope, formIds: string[]): Promise<Map<string, StoredCounts>>;
  /** The daily counts of the UTC days [`fromDay`, `toDay`] (`YYYY-MM-DD`), oldest first, days without any left out. */
  getDailyCounts(scope: OrgScope, formId: string, fromDay: string, toDay: string): Promise<StoredDailyCount[]>;
}
