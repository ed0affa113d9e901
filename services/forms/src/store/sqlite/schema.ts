import type { StoredSubmission, SubmissionRecord } from '../records.ts';

/** What `submissions.doc` holds (JSON); the other attributes are columns. */
export type SubmissionBody = Pick<
  SubmissionRecord,
  'fields' | 'files' | 'spam' | 'held' | 'origin' | 'referer' | 'meta'
> & {
  /** Ingest's verdict, kept from the first mark on (`spam.isSpam` holds the mark). */
  receivedSpam?: boolean;
  /** Released from spam once already (issue 14): a later not-spam mark releases nothing. */
  spamReleased?: boolean;
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

export const toRecord = (row: SubmissionRow): StoredSubmission => {
  const { fields, files, spam, held, origin, referer } = JSON.parse(row.doc) as SubmissionBody;
  // One object shape for every row (exports read hundreds of thousands): optional keys are set after, not spread.
  const record: StoredSubmission = {
    id: row.id,
    formId: row.form_id,
    orgId: row.org_id,
    createdAt: row.created_at,
    fields,
    files,
    spam,
    held,
    seq: row.seq,
  };
  if (origin !== undefined) record.origin = origin;
  if (referer !== undefined) record.referer = referer;
  return record;
};
