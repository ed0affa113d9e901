import type { MongoConnection } from '@formgate/store/mongo';
import { groupByForm } from './batch-order.ts';
import type { FormsStore } from './forms-store.ts';
import { recordFieldNames } from './mongo-field-names.ts';
import { bucketKeys, type FormPages, formBucketBelow, formBucketsCovering, type PageLayout } from './page-buckets.ts';
import { searchTerms } from './search-terms.ts';
import type { StoredSubmission, SubmissionRecord } from './submission-record.ts';

type MongoDb = NonNullable<MongoConnection['db']>;

export interface SubmissionDoc extends Omit<SubmissionRecord, 'id'> {
  _id: string;
  seq: number;
  /** The page buckets of `seq`, one per grid of its form's layout there (page-buckets.ts). */
  buckets: string[];
  /** A tombstone: deleted through the API, fields and files emptied (mongo-submission-changes.ts). */
  deleted?: true;
  /** Ingest's verdict, kept once the submission was marked spam / not spam (`spam.isSpam` holds the mark). */
  receivedSpam?: boolean;
  /** Released from spam by a not-spam mark (issue 14): a later one releases nothing. */
  spamReleased?: true;
  /** How many changes it has had (mongo-submission-changes.ts); absent: none. */
  v?: number;
  /** The searchable words of the field values (search-terms.ts); absent on documents not backfilled yet. */
  terms?: string[];
  /** When a held submission was released (issue 13): it was received held, and is counted by its release. */
  releasedAt?: string;
}

/**
 * One per form. `seq` is the next free position; `pending` is set while a batch holding the positions
 * [`seq`, `seq + pending`) is being written, so a batch cut short is found and counted by the next one.
 * A counter without `seq` is a form stored before ADR 0015, not migrated yet.
 */
export interface CounterDoc {
  _id: string;
  orgId: string;
  count: number;
  seq?: number;
  pending?: number;
  /**
   * The first position filed under `pageLayout()` (ADR 0059): set by the form's first batch since, together with
   * its reservation; the positions below keep `legacyLayout()`'s buckets. Absent: every position is legacy.
   */
  pagesFrom?: number;
  /** Live submissions counted as spam. */
  spam?: number;
  /** `createdAt` of the newest submission stored. */
  lastAt?: string;
  /** Per UTC day of `createdAt` (`YYYY-MM-DD`): live submissions and, of them, spam. */
  days?: Record<string, { total?: number; spam?: number }>;
  /** Submissions stored held (in none of the counts above); their releases are counted in the change counters. */
  held?: number;
}

export const SUBMISSIONS = 'form_submissions';
export const COUNTERS = 'form_counters';
export const PROJECTION = {
  buckets: 0,
  deleted: 0,
  receivedSpam: 0,
  v: 0,
  terms: 0,
  meta: 0,
  releasedAt: 0,
  spamReleased: 0,
} as const;

type Counted = Pick<SubmissionDoc, 'createdAt' | 'spam' | 'receivedSpam'> &
  Partial<Pick<SubmissionDoc, 'held' | 'releasedAt'>>;
/** What `insertIncrements` reads of a document. */
export const COUNTED_PROJECTION = { createdAt: 1, spam: 1, receivedSpam: 1, held: 1, releasedAt: 1 } as const;

/**
 * The counter increments for stored documents: each as ingest received it (spam by its verdict, held if it was,
 * counted only as held), so a document a batch cut short stored, then changed or released, is counted the same as
 * if the batch had not been cut short.
 */
export function insertIncrements(docs: Counted[]): { $inc: Record<string, number>; $max?: { lastAt: string } } {
  const receivedHeld = (d: Counted) => d.held === true || d.releasedAt !== undefined;
  const held = docs.filter(receivedHeld).length;
  const $inc: Record<string, number> = { count: docs.length - held };
  if (held > 0) $inc.held = held;
  let spam = 0;
  let last = '';
  for (const d of docs) {
    if (receivedHeld(d)) continue;
    const isSpam = d.receivedSpam ?? d.spam.isSpam;
    const day = d.createdAt.slice(0, 10);
    $inc[`days.${day}.total`] = ($inc[`days.${day}.total`] ?? 0) + 1;
    if (isSpam) {
      spam += 1;
      $inc[`days.${day}.spam`] = ($inc[`days.${day}.spam`] ?? 0) + 1;
    }
    if (d.createdAt > last) last = d.createdAt;
  }
  if (spam > 0) $inc.spam = spam;
  return last ? { $inc, $max: { lastAt: last } } : { $inc };
}

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
  };
}

export const toStored = ({
  _id,
  buckets: _b,
  terms: _t,
  ...rest
}: Omit<SubmissionDoc, 'buckets'> & { buckets?: unknown }) => ({ id: _id, ...rest }) as StoredSubmission;

/** Indexes of the documents an unordered `insertMany` refused as duplicates; rethrows any other failure. */
function duplicateIndexes(err: unknown): Set<number> {
  const writeErrors = [(err as { writeErrors?: unknown }).writeErrors ?? []].flat() as {
    code?: number;
    index?: number;
  }[];
  if (writeErrors.length === 0 || !writeErrors.every((w) => w.code === 11000 && typeof w.index === 'number')) {
    throw err;
  }
  return new Set(writeErrors.map((w) => w.index as number));
}

type SubmissionMethods = Pick<
  FormsStore,
  'insertSubmissions' | 'listSubmissions' | 'getSubmission' | 'countSubmissions'
>;

/**
 * The submissions read model on MongoDB 7+ / FerretDB 1.24 (ADR 0015): every read is an equality lookup — the
 * counter by `_id`, a page by (`formId`, one bucket key) — and every batch is one `insertMany` between two counter
 * updates (reserve the positions, then commit them with the count), so counts stay exact without transactions.
 */
export function createMongoSubmissions(db: MongoDb, layouts: Omit<FormPages, 'pagesFrom'>): SubmissionMethods {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);

  /** Counts what a batch cut short after reserving [`from`, `from + n`) stored, and commits it. */
  async function settle(formId: string, from: number, n: number, pagesFrom: number | undefined): Promise<number> {
    const found: (Counted & { seq: number })[] = [];
    for (const key of formBucketsCovering(from, from + n, { ...layouts, pagesFrom })) {
      const docs = await submissions
        .find(
          { formId, buckets: key, seq: { $gte: from, $lt: from + n } },
          { projection: { seq: 1, ...COUNTED_PROJECTION } },
        )
        .toArray();
      found.push(...docs);
    }
    const next = found.length > 0 ? Math.max(...found.map((d) => d.seq)) + 1 : from;
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: next }, ...insertIncrements(found), $unset: { pending: '' } },
    );
    return next;
  }

  /**
   * Reserves `n` positions for the form; returns the first. The first reservation of a form without `pagesFrom`
   * sets it to its first position: from there on, its documents are filed under `layouts.current`.
   */
  async function reserve(formId: string, orgId: string, n: number): Promise<number> {
    const counter = await counters.findOne({ _id: formId });
    let from = counter?.seq ?? 0;
    if (counter?.pending) from = await settle(formId, from, counter.pending, counter.pagesFrom);
    // A legacy counter (no `seq`) does not match: the upsert then fails on its `_id` instead of reusing positions.
    await counters.updateOne(
      { _id: formId, seq: from },
      {
        $set: { pending: n, ...(counter?.pagesFrom === undefined ? { pagesFrom: from } : {}) },
        $setOnInsert: { orgId, count: 0, spam: 0, days: {} },
      },
      { upsert: true },
    );
    return from;
  }

  /** Commits a form's batch: the positions up to its last stored document, and the count of those stored. */
  async function commit(formId: string, from: number, records: SubmissionRecord[], stored: boolean[]) {
    // Positions after the last stored document stay free for the next batch (a redelivery leaves no gap).
    const used = stored.lastIndexOf(true) + 1;
    const added = records.filter((_, i) => stored[i]);
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: from + used }, ...insertIncrements(added), $unset: { pending: '' } },
    );
    return added.length;
  }

  async function insertSubmissions(records: SubmissionRecord[]): Promise<number> {
    const batches = await Promise.all(
      groupByForm(records).map(async (g) => ({ ...g, from: await reserve(g.formId, g.orgId, g.records.length) })),
    );
    // Every reserved position is at or above the form's `pagesFrom` (set by `reserve` when absent).
    const docs = batches.flatMap((b) => b.records.map((r, j) => submissionDoc(r, b.from + j, layouts.current)));
    if (docs.length === 0) return 0;
    // Before the documents: a name recorded for a batch that then fails is harmless, a missing one is not.
    await recordFieldNames(db, batches);
    let refused = new Set<number>();
    try {
      await submissions.insertMany(docs, { ordered: false });
    } catch (err) {
      refused = duplicateIndexes(err);
    }
    let offset = 0;
    const stored = batches.map((b) => b.records.map(() => !refused.has(offset++)));
    const added = await Promise.all(batches.map((b, i) => commit(b.formId, b.from, b.records, stored[i] ?? [])));
    return added.reduce((a, b) => a + b, 0);
  }

  return {
    insertSubmissions,
    async listSubmissions(scope, formId, { limit, after }) {
      const counter = await counters.findOne({ _id: formId });
      if (limit <= 0 || !counter || counter.orgId !== scope.orgId) return [];
      const page: StoredSubmission[] = [];
      let before = Math.min(after?.seq ?? Number.POSITIVE_INFINITY, counter.seq ?? 0);
      const pages = { ...layouts, pagesFrom: counter.pagesFrom };
      while (page.length < limit && before > 0) {
        const { key, low } = formBucketBelow(before, pages);
        const docs = await submissions
          .find({ formId, buckets: key, seq: { $lt: before }, deleted: { $ne: true } }, { projection: PROJECTION })
          .sort({ seq: -1 })
          .limit(limit - page.length)
          .toArray();
        page.push(...docs.filter((d) => d.orgId === scope.orgId).map(toStored));
        before = low;
      }
      return page;
    },
    async getSubmission(scope, formId, id) {
      const doc = await submissions.findOne(
        { _id: id },
        { projection: { buckets: 0, receivedSpam: 0, v: 0, meta: 0, releasedAt: 0, spamReleased: 0 } },
      );
      if (!doc || doc.deleted || doc.orgId !== scope.orgId || doc.formId !== formId) return null;
      const { deleted: _d, ...rest } = doc;
      return toStored(rest);
    },
    async countSubmissions(scope, formId) {
      const counter = await counters.findOne({ _id: formId });
      return counter?.orgId === scope.orgId ? counter.count : 0;
    },
  };
}

/** The one index of the submissions: a page read is an equality on its first two fields, sorted by the third. */
export async function createSubmissionIndexes(db: MongoDb): Promise<void> {
  await db.collection(SUBMISSIONS).createIndex({ formId: 1, buckets: 1, seq: -1 }, { name: 'form_page' });
}
