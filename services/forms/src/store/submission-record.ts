import type { SpamVerdict, SubmissionField, SubmissionFile, SubmissionReceived } from '@formgate/contracts';

/** A submission as the forms service keeps it. */
export interface SubmissionRecord {
  id: string;
  formId: string;
  orgId: string;
  /** ISO-8601 UTC with milliseconds (when ingest received it). */
  createdAt: string;
  fields: SubmissionField[];
  files: SubmissionFile[];
  spam: SpamVerdict;
  held: boolean;
  /** The submitting page's `Origin` and `Referer` as ingest recorded them; absent when unknown. Not searchable. */
  origin?: string;
  referer?: string;
  /**
   * A held submission's reserved fields (`_subject`, `_replyto`, `_cc`, … as ingest normalised them), kept until
   * its release carries them to notifications; absent otherwise. Never shown.
   */
  meta?: SubmissionMeta;
}

/** `submission.received`'s `meta`. */
export type SubmissionMeta = SubmissionReceived['data']['meta'];

/** A submission as stored, with its place in its form's list. */
export interface StoredSubmission extends SubmissionRecord {
  /**
   * The submission's position in its form's list, given once when it is first stored: every submission stored
   * later gets a higher one. Positions of one form are distinct, start at 0 and may have gaps.
   */
  seq: number;
}
