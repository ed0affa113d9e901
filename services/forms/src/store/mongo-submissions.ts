import type { MongoConnection } from '@formgate/store/mongo';
import { groupByForm } from './batch-order.ts';
import type { FormsStore, StoredSubmission, SubmissionRecord } from './forms-store.ts';
import { recordFieldNames } from './mongo-field-names.ts';
import { bucketBelow, bucketKeys, bucketsCovering } from './page-buckets.ts';
import { searchTerms } from './search-terms.ts';

type MongoDb = NonNullable<MongoConnection['db']>;

export interface SubmissionDoc extends Omit<SubmissionRecord, 'id'> {
  _id: string;
  seq: number;
  /** The two page buckets of `seq` (page-buckets.ts). */
  buckets: [string, string];
  /** The searchable words of the field values (search-terms.ts); absent on documents not backfilled yet. */
  terms?: string[];
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
}

export const SUBMISSIONS = 'form_submissions';
export const COUNTERS = 'form_counters';
export const PROJECTION = { buckets: 0, terms: 0 } as const;

/** The document stored for a record at position `seq`. Field names stay values inside `{name, value}` pairs. */
export function submissionDoc(r: SubmissionRecord, seq: number, width: number): SubmissionDoc {
  return {
    _id: r.id,
    formId: r.formId,
    orgId: r.orgId,
    seq,
    buckets: bucketKeys(seq, width),
    createdAt: r.createdAt,
    fields: r.fields.map((f) => ({ name: f.name, value: f.value })),
    files: r.files,
    spam: r.spam,
    held: r.held,
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
export function createMongoSubmissions(db: MongoDb, width: number): SubmissionMethods {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);

  /** Counts what a batch cut short after reserving [`from`, `from + n`) stored, and commits it. */
  async function settle(formId: string, from: number, n: number): Promise<number> {
    const found: number[] = [];
    for (const key of bucketsCovering(from, from + n, width)) {
      const docs = await submissions
        .find({ formId, buckets: key, seq: { $gte: from, $lt: from + n } }, { projection: { seq: 1 } })
        .toArray();
      found.push(...docs.map((d) => d.seq));
    }
    const next = found.length > 0 ? Math.max(...found) + 1 : from;
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: next }, $inc: { count: found.length }, $unset: { pending: '' } },
    );
    return next;
  }

  /** Reserves `n` positions for the form; returns the first. */
  async function reserve(formId: string, orgId: string, n: number): Promise<number> {
    const counter = await counters.findOne({ _id: formId });
    let from = counter?.seq ?? 0;
    if (counter?.pending) from = await settle(formId, from, counter.pending);
    // A legacy counter (no `seq`) does not match: the upsert then fails on its `_id` instead of reusing positions.
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { pending: n }, $setOnInsert: { orgId, count: 0 } },
      { upsert: true },
    );
    return from;
  }

  /** Commits a form's batch: the positions up to its last stored document, and the count of those stored. */
  async function commit(formId: string, from: number, stored: boolean[]): Promise<number> {
    // Positions after the last stored document stay free for the next batch (a redelivery leaves no gap).
    const used = stored.lastIndexOf(true) + 1;
    const n = stored.filter(Boolean).length;
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: from + used }, $inc: { count: n }, $unset: { pending: '' } },
    );
    return n;
  }

  async function insertSubmissions(records: SubmissionRecord[]): Promise<number> {
    const batches = await Promise.all(
      groupByForm(records).map(async (g) => ({ ...g, from: await reserve(g.formId, g.orgId, g.records.length) })),
    );
    const docs = batches.flatMap((b) => b.records.map((r, j) => submissionDoc(r, b.from + j, width)));
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
    const added = await Promise.all(batches.map((b, i) => commit(b.formId, b.from, stored[i] ?? [])));
    return added.reduce((a, b) => a + b, 0);
  }

  return {
    insertSubmissions,
    async listSubmissions(scope, formId, { limit, after }) {
      const counter = await counters.findOne({ _id: formId });
      if (limit <= 0 || !counter || counter.orgId !== scope.orgId) return [];
      const page: StoredSubmission[] = [];
      let before = Math.min(after?.seq ?? Number.POSITIVE_INFINITY, counter.seq ?? 0);
      while (page.length < limit && before > 0) {
        const { key, low } = bucketBelow(before, width);
        const docs = await submissions
          .find({ formId, buckets: key, seq: { $lt: before } }, { projection: PROJECTION })
          .sort({ seq: -1 })
          .limit(limit - page.length)
          .toArray();
        page.push(...docs.filter((d) => d.orgId === scope.orgId).map(toStored));
        before = low;
      }
      return page;
    },
    async getSubmission(scope, formId, id) {
      const doc = await submissions.findOne({ _id: id }, { projection: PROJECTION });
      return doc && doc.orgId === scope.orgId && doc.formId === formId ? toStored(doc) : null;
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
