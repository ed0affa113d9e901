import type { StoredSubmission, SubmissionRecord } from '../records.ts';

/** What `submissions.doc` holds (JSON); the other attributes are columns. */
export type SubmissionBody = Pick<
  SubmissionRecord,
  'fields' | 'files' | 'spam' | 'held' | 'origin' | 'referer' | 'meta' | 'fileScans'
> & {
  /** Ingest's verdict, kept from the first mark on (`spam.isSpam` holds the mark). */
  receivedSpam?: boolean;
  /** Released from spam once already (issue 14): a later not-spam mark releases nothing. */
  spamReleased?: boolean;
  contentDropped?: true;
};

/** A `submissions` row as read (never `spam` and `held`: virtual columns computed from `doc`). */
export interface SubmissionRow {
  id: string;
  form_id: string;
  org_id: string;
  created_at: string;
  seq: number;
  doc: string;
}

/** The columns of a `SubmissionRow`: not `*`, which would also compute the virtual `spam` and `held` of each row. */
export const SUBMISSION_COLUMNS = 'id, form_id, org_id, created_at, seq, doc';

export const toRecord = (row: SubmissionRow): StoredSubmission =>
  recordOf(row.id, row.form_id, row.org_id, row.created_at, row.seq, row.doc);

/**
 * The records of one form's rows read as arrays of `id, created_at, seq, doc` (a statement in better-sqlite3's raw
 * mode): lists and exports read rows this way, with no object per row for the columns and no copy of the form's and
 * organization's ids, which the query was given.
 */
export const formRecords =
  (formId: string, orgId: string) =>
  (v: unknown[]): StoredSubmission =>
    recordOf(v[0] as string, formId, orgId, v[1] as string, v[2] as number, v[3] as string);

function recordOf(id: string, formId: string, orgId: string, createdAt: string, seq: number, doc: string) {
  const { fields, files, spam, held, origin, referer, contentDropped, fileScans } = JSON.parse(doc) as SubmissionBody;
  // One object shape for every row (exports read hundreds of thousands): optional keys are set after, not spread.
  const record: StoredSubmission = { id, formId, orgId, createdAt, fields, files, spam, held, seq };
  if (origin !== undefined) record.origin = origin;
  if (referer !== undefined) record.referer = referer;
  if (contentDropped) record.contentDropped = true;
  if (fileScans !== undefined) record.fileScans = fileScans;
  return record;
}
