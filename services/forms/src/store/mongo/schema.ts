import { type Form, withDefaultSettings } from '@formgate/contracts';
import { bucketKeys, type PageLayout } from '@formgate/store/mongo';
import type { StoredSubmission, SubmissionChange, SubmissionRecord } from '../records.ts';
import { searchTerms } from '../search-terms.ts';

/** The forms store's collections; their indexes are created by `migrations/`. */
export const Collections = {
  forms: 'forms',
  /** Form versions written and not yet published (`form-outbox.ts`), and the relays' marks. */
  formOutbox: 'form_outbox',
  formPublished: 'form_published',
  formDeletions: 'form_deletions',
  submissions: 'form_submissions',
  /** One per form, written only by the projection of `submission.received` (`submission-read-model.ts`). */
  counters: 'form_counters',
  /** One per form: what the changes counted so far add to `form_counters`, written only by their consumer. */
  changeCounters: 'form_change_counters',
  submissionChanges: 'submission_changes',
  fieldNames: 'form_field_names',
  blockedCounts: 'form_blocked_counts',
  releaseLedgers: 'release_ledgers',
  /** Erasures' signed receipts (issue 31), `_id` the erasure's id. */
  erasures: 'form_erasures',
  /** Organizations' default retention (issue 31), `_id` the organization's id. */
  orgRetention: 'form_org_retention',
} as const;

/** A stored form. */
export interface FormDoc extends Omit<Form, 'id'> {
  _id: string;
}

/** A form as the API reads it, or null when there is none or it belongs to another organization. */
export const toForm = (doc: FormDoc | null, orgId?: string): Form | null => {
  if (!doc || (orgId !== undefined && doc.orgId !== orgId)) return null;
  const { _id, ...rest } = doc;
  return withDefaultSettings({ id: _id, ...rest });
};

export interface DeletionDoc {
  _id: string;
  orgId: string;
  key: string;
  version: number;
}

export interface SubmissionDoc extends Omit<SubmissionRecord, 'id'> {
  _id: string;
  seq: number;
  /** The page buckets of `seq`, one per grid of the form's layout (`@formgate/store/mongo` page buckets). */
  buckets: string[];
  /** A tombstone: deleted through the API, fields and files emptied (`submission-changes.ts`). */
  deleted?: true;
  /** Ingest's verdict, kept once the submission was marked spam / not spam (`spam.isSpam` holds the mark). */
  receivedSpam?: boolean;
  /** Released from spam by a not-spam mark (issue 14): a later one releases nothing. */
  spamReleased?: true;
  /** How many changes it has had (`submission-changes.ts`); absent: none. */
  v?: number;
  /** The searchable words of the field values (`search-terms.ts`). */
  terms: string[];
  /** The keyed hashes of its addresses (`SubmissionRecord.addressKeys`, issue 31). */
  addressKeys?: string[];
  /** When a held submission was released (issue 13): it was received held, and is counted by its release. */
  releasedAt?: string;
}

/**
 * One per form. `seq` is the next free position; `pending` is set while a batch holding the positions
 * [`seq`, `seq + pending`) is being written, so a batch cut short is found and counted by the next one.
 */
export interface CounterDoc {
  _id: string;
  orgId: string;
  count: number;
  seq: number;
  pending?: number;
  /** Live submissions counted as spam. */
  spam: number;
  /** `createdAt` of the newest submission stored. */
  lastAt?: string;
  /** Per UTC day of `createdAt` (`YYYY-MM-DD`): live submissions and, of them, spam. */
  days: Record<string, { total?: number; spam?: number }>;
  /** Submissions stored held (in none of the counts above); their releases are counted in the change counters. */
  held?: number;
}

export interface ChangeCounterDoc {
  _id: string;
  orgId: string;
  count: number;
  spam: number;
  /** Releases counted (negative: held submissions that left the held count). */
  held?: number;
  /** `createdAt` of the newest submission released. */
  lastAt?: string;
  days: Record<string, { total?: number; spam?: number }>;
  /** The ids of the changes counted last, so a redelivered batch is not counted twice. */
  recent: string[];
}

/**
 * A change in the outbox. Its `_id` claims the submission's next version (`<submissionId>#<v>`, see
 * `submission-changes.ts`). `applied` once the submission has its new state.
 */
export interface ChangeDoc extends Omit<SubmissionChange, 'id'> {
  _id: string;
  eventId: string;
  /** The version the submission had when the change was claimed; the change gives it `v + 1`. */
  v: number;
  applied: boolean;
  /** Ingest's verdict on the submission (kept on it when a mark overrides it). */
  receivedSpam: boolean;
  /** Milliseconds since the epoch when claimed: the outbox is published in this order. */
  at: number;
  /** A deletion's or erasure's: the verdict its tombstone keeps (`tombstoneVerdict`). */
  tombstoneSpam?: SubmissionRecord['spam'];
}

/** One per form: the field names of its submissions, in the order first seen (the export's columns). */
export interface FieldNamesDoc {
  _id: string;
  orgId: string;
  names: string[];
}

/** What a submission read returns of a document: what the API shows. */
export const PROJECTION = {
  buckets: 0,
  deleted: 0,
  receivedSpam: 0,
  v: 0,
  terms: 0,
  meta: 0,
  releasedAt: 0,
  spamReleased: 0,
  addressKeys: 0,
} as const;

/** The document stored for a record at position `seq`. Field names stay values inside `{name, value}` pairs. */
export function submissionDoc(r: SubmissionRecord, seq: number, layout: PageLayout): SubmissionDoc {
  return {
    _id: r.id,
    formId: r.formId,
    orgId: r.orgId,
    seq,
    buckets: bucketKeys(seq, layout),
    createdAt: r.createdAt,
    fields: r.fields.map((f) => ({ name: f.name, value: f.value })),
    files: r.files,
    spam: r.spam,
    held: r.held,
    ...(r.origin !== undefined ? { origin: r.origin } : {}),
    ...(r.referer !== undefined ? { referer: r.referer } : {}),
    // A held submission keeps its reserved fields for its release; a visible one has no use for them.
    ...((r.held || r.spam.isSpam) && r.meta !== undefined ? { meta: r.meta } : {}),
    terms: searchTerms(r.fields),
    ...(r.addressKeys !== undefined ? { addressKeys: r.addressKeys } : {}),
    ...(r.fileScans !== undefined ? { fileScans: r.fileScans } : {}),
  };
}

export const toStored = ({
  _id,
  buckets: _b,
  terms: _t,
  addressKeys: _a,
  ...rest
}: Omit<SubmissionDoc, 'buckets' | 'terms'> & { buckets?: unknown; terms?: unknown }) =>
  ({ id: _id, ...rest }) as StoredSubmission;
