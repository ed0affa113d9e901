import type {
  DailyCount,
  FileScan,
  FormCounts,
  SpamVerdict,
  SubmissionAction,
  SubmissionField,
  SubmissionFile,
  SubmissionReceived,
} from '@formgate/contracts';

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
  /**
   * The keyed hashes of the email addresses it holds (`privacy/addresses.ts`), set by the projection so an erasure
   * finds it by submitter (issue 31). Written with it, never read back; absent on a record read from the store.
   */
  addressKeys?: string[];
  /**
   * Its form stores no content (`settings.storeContent: false`) and notifications are done with it: only its
   * metadata is kept (`SubmissionReadModel.dropContent`).
   */
  contentDropped?: true;
  /**
   * The malware scans of its files by `blobKey` (issue 33): `pending` for each file when it is stored while files
   * are scanned, replaced by the verdict (`SubmissionReadModel.recordFileScan`). Absent: received while files were
   * not scanned.
   */
  fileScans?: Record<string, FileScan>;
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

/**
 * What a change does: the API's actions, `release` (a held submission becomes visible, made by the release of
 * held submissions, `use-cases/release-held.ts`, never through the API) and `erase` (a deletion by an erasure,
 * `use-cases/erase-submitter.ts`, which reaches held submissions too).
 */
export type SubmissionChangeAction = SubmissionAction | 'release' | 'erase';

/**
 * A change made to a stored submission through the API, waiting in the outbox until its event reached
 * `forms.submission`. Its `id` is the event's id.
 */
export interface SubmissionChange {
  id: string;
  formId: string;
  orgId: string;
  submissionId: string;
  action: SubmissionChangeAction;
  /** Whether the submission counted as spam just before the change. */
  wasSpam: boolean;
  /** The submission's `createdAt` (when ingest received it). */
  receivedAt: string;
  occurredAt: string;
  /** The blobs of a deleted submission, deleted by the relay before the event is published. */
  blobKeys: string[];
  /** An erasure's change (`erase`): the erasure's id, which its event carries. */
  erasure?: string;
  /** A deletion by the retention in force (an `erase` without an erasure id). */
  expired?: true;
  /** An erasure's change: whether the submission was held (then it leaves the held count, not the others). */
  wasHeld?: boolean;
  /**
   * A release's submission as released (what `submission.released` carries), without its position; and, on the
   * first `not-spam` mark of a submission ingest judged spam (issue 14, ADR 42), the submission as released from
   * spam (`spam.isSpam: false`, ingest's reasons kept), which `submission.spam-marked` then carries.
   */
  submission?: SubmissionRecord;
}

/** What counting a change needs: its event's data. */
export type CountedChange = Pick<
  SubmissionChange,
  'id' | 'formId' | 'orgId' | 'action' | 'wasSpam' | 'receivedAt' | 'wasHeld'
>;

/** What the submissions' counters hold; blocked requests are counted apart (`blocked-counts.ts`). */
export type StoredCounts = Omit<FormCounts, 'blockedCount'>;
export type StoredDailyCount = Omit<DailyCount, 'blocked'>;

/**
 * What the release of an organization's held submissions has promised in a billing period (issue 13): `level` is
 * the submissions used that the releases planned so far fill the period up to (billing's count plus what was
 * released and perhaps not counted by billing yet), `owed` how many releases were planned, `done` how many of
 * them were made. A new period starts a new ledger.
 */
export interface ReleaseLedger {
  orgId: string;
  /** `YYYY-MM`, billing's period. */
  period: string;
  level: number;
  owed: number;
  done: number;
}

/** A form's blocked requests on one UTC day (`YYYY-MM-DD`). */
export interface BlockedDay {
  day: string;
  blocked: number;
}
