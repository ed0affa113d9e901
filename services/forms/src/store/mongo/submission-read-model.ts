import { checkBlobKey } from '@formgate/store';
import {
  bucketsCovering,
  duplicateIndexes,
  type MongoDb,
  type PageLayout,
  type PageRead,
  readDownPageBuckets,
} from '@formgate/store/mongo';
import { groupByForm } from '../batch-order.ts';
import type { StoredCounts, StoredDailyCount, StoredSubmission, SubmissionRecord } from '../records.ts';
import type { SubmissionReadModel } from '../submission-read-model.ts';
import {
  type ChangeCounterDoc,
  Collections,
  type CounterDoc,
  type FieldNamesDoc,
  PROJECTION,
  type SubmissionDoc,
  submissionDoc,
  toStored,
} from './schema.ts';
import { createMongoSubmissionQuery } from './submission-query.ts';

type Counted = Pick<SubmissionDoc, 'createdAt' | 'spam' | 'receivedSpam'> &
  Partial<Pick<SubmissionDoc, 'held' | 'releasedAt'>>;
/** What `insertIncrements` reads of a document. */
const COUNTED_PROJECTION = { createdAt: 1, spam: 1, receivedSpam: 1, held: 1, releasedAt: 1 } as const;

/** Most names kept per form; names seen after that are not columns of the export (their values are still kept). */
export const MAX_FIELD_NAMES = 1_000;

/**
 * The counter increments for stored documents: each as ingest received it (spam by its verdict, held if it was,
 * counted only as held), so a document a batch cut short stored, then changed or released, is counted the same as
 * if the batch had not been cut short.
 */
function insertIncrements(docs: Counted[]): { $inc: Record<string, number>; $max?: { lastAt: string } } {
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

/**
 * `SubmissionReadModel` on MongoDB 7+ / FerretDB 1.24 (ADR 0015): every read is an equality lookup — the counter
 * by `_id`, a page by (`formId`, one bucket key) on index `form_page` — and every batch is one `insertMany` between
 * two counter updates (reserve the positions, then commit them with the count), so counts stay exact without
 * transactions. Counters are `form_counters` (the projection's) plus `form_change_counters` (the changes' consumer's),
 * one writer each. `layout` (tests: a narrower width) must stay the same for the life of a database.
 */
export function createMongoSubmissionReadModel(
  db: MongoDb,
  options: { layout: PageLayout; pageRead: PageRead },
): SubmissionReadModel {
  const { layout } = options;
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  const counters = db.collection<CounterDoc>(Collections.counters);
  const changeCounters = db.collection<ChangeCounterDoc>(Collections.changeCounters);
  const names = db.collection<FieldNamesDoc>(Collections.fieldNames);

  /** Counts what a batch cut short after reserving [`from`, `from + n`) stored, and commits it. */
  async function settle(formId: string, from: number, n: number): Promise<number> {
    const found: (Counted & { seq: number })[] = [];
    for (const key of bucketsCovering(from, from + n, layout)) {
      // Index `form_page` (formId, buckets, seq).
      const docs = await submissions
        .find(
          { formId, buckets: key, seq: { $gte: from, $lt: from + n } },
          { projection: { seq: 1, ...COUNTED_PROJECTION } },
        )
        .toArray();
      found.push(...docs);
    }
    const next = found.length > 0 ? Math.max(...found.map((d) => d.seq)) + 1 : from;
    // By `_id`; the position is checked on the document.
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: next }, ...insertIncrements(found), $unset: { pending: '' } },
    );
    return next;
  }

  /** Reserves `n` positions for the form; returns the first. */
  async function reserve(formId: string, orgId: string, n: number): Promise<number> {
    // The read and the update by `_id`.
    const counter = await counters.findOne({ _id: formId });
    let from = counter?.seq ?? 0;
    if (counter?.pending) from = await settle(formId, from, counter.pending);
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { pending: n }, $setOnInsert: { orgId, count: 0, spam: 0, days: {} } },
      { upsert: true },
    );
    return from;
  }

  /** Commits a form's batch: the positions up to its last stored document, and the count of those stored. */
  async function commit(formId: string, from: number, records: SubmissionRecord[], stored: boolean[]) {
    // Positions after the last stored document stay free for the next batch (a redelivery leaves no gap).
    const used = stored.lastIndexOf(true) + 1;
    const added = records.filter((_, i) => stored[i]);
    // By `_id`; the position is checked on the document.
    await counters.updateOne(
      { _id: formId, seq: from },
      { $set: { seq: from + used }, ...insertIncrements(added), $unset: { pending: '' } },
    );
    return added.length;
  }

  /** Adds the field names of a batch to each form's list (`$addToSet`: a redelivered batch adds nothing). */
  async function recordFieldNames(batches: readonly { formId: string; orgId: string; records: SubmissionRecord[] }[]) {
    await Promise.all(
      batches.map(async ({ formId, orgId, records }) => {
        const seen = [...new Set(records.flatMap((r) => r.fields.map((f) => f.name)))];
        if (seen.length === 0) return;
        // The read and the update by `_id`.
        const doc = await names.findOne({ _id: formId }, { projection: { names: 1 } });
        const known = new Set(doc?.names ?? []);
        const fresh = seen.filter((n) => !known.has(n)).slice(0, Math.max(0, MAX_FIELD_NAMES - known.size));
        if (fresh.length === 0) return;
        await names.updateOne(
          { _id: formId },
          { $addToSet: { names: { $each: fresh } }, $setOnInsert: { orgId } },
          { upsert: true },
        );
      }),
    );
  }

  async function insertSubmissions(records: SubmissionRecord[]): Promise<number> {
    const batches = await Promise.all(
      groupByForm(records).map(async (g) => ({ ...g, from: await reserve(g.formId, g.orgId, g.records.length) })),
    );
    const docs = batches.flatMap((b) => b.records.map((r, j) => submissionDoc(r, b.from + j, layout)));
    if (docs.length === 0) return 0;
    // Before the documents: a name recorded for a batch that then fails is harmless, a missing one is not.
    await recordFieldNames(batches);
    let refused = new Set<number>();
    try {
      await submissions.insertMany(docs, { ordered: false });
    } catch (err) {
      refused = new Set(duplicateIndexes(err));
    }
    let offset = 0;
    const stored = batches.map((b) => b.records.map(() => !refused.has(offset++)));
    const added = await Promise.all(batches.map((b, i) => commit(b.formId, b.from, b.records, stored[i] ?? [])));
    return added.reduce((a, b) => a + b, 0);
  }

  return {
    insertSubmissions,
    async listSubmissions(scope, formId, { limit, after }) {
      const counter = await counters.findOne({ _id: formId }); // by `_id`
      if (limit <= 0 || !counter || counter.orgId !== scope.orgId) return [];
      return readDownPageBuckets<StoredSubmission>({
        before: Math.min(after?.seq ?? Number.POSITIVE_INFINITY, counter.seq),
        limit,
        layout,
        // Index `form_page` (formId, buckets, seq): equalities on the first two, sorted by the third.
        readBucket: async (key, before, n) =>
          (
            await submissions
              .find({ formId, buckets: key, seq: { $lt: before }, deleted: { $ne: true } }, { projection: PROJECTION })
              .sort({ seq: -1 })
              .limit(n)
              .toArray()
          )
            .filter((d) => d.orgId === scope.orgId)
            .map(toStored),
      });
    },
    async getSubmission(scope, formId, id) {
      // By `_id`; the organization and the form are checked on the document.
      const doc = await submissions.findOne(
        { _id: id },
        { projection: { buckets: 0, receivedSpam: 0, v: 0, meta: 0, releasedAt: 0, spamReleased: 0 } },
      );
      if (!doc || doc.deleted || doc.orgId !== scope.orgId || doc.formId !== formId) return null;
      const { deleted: _d, ...rest } = doc;
      return toStored(rest);
    },
    async dropContent(scope, formId, id) {
      // By `_id`; one update, so a read sees the submission whole or dropped.
      const { matchedCount } = await submissions.updateOne(
        { _id: id, orgId: scope.orgId, formId, deleted: { $exists: false } },
        {
          $set: { fields: [], files: [], terms: [], addressKeys: [], contentDropped: true },
          $unset: { meta: '', origin: '', referer: '', fileScans: '' },
        },
      );
      return matchedCount > 0;
    },
    async fileReferences(blobKeys) {
      if (blobKeys.length === 0) return new Set();
      // Index `file_blobs`; a tombstone's or a dropped submission's `files` are empty.
      const docs = await submissions
        .find({ 'files.blobKey': { $in: [...blobKeys] } }, { projection: { files: 1 } })
        .toArray();
      const wanted = new Set(blobKeys);
      return new Set(docs.flatMap((d) => d.files.map((f) => f.blobKey)).filter((k) => wanted.has(k)));
    },
    async recordFileScan(scope, formId, id, blobKey, scan) {
      checkBlobKey(blobKey); // a field name: never a path (`.`) or an operator (`$`)
      const { matchedCount } = await submissions.updateOne(
        { _id: id, orgId: scope.orgId, formId, deleted: { $exists: false }, contentDropped: { $exists: false } },
        { $set: { [`fileScans.${blobKey}`]: scan } },
      );
      return matchedCount > 0;
    },
    ...createMongoSubmissionQuery(db, { pageRead: options.pageRead, layout }),
    async countSubmissions(scope, formId) {
      const counter = await counters.findOne({ _id: formId }); // by `_id`
      return counter?.orgId === scope.orgId ? counter.count : 0;
    },
    async getFormCounts(scope, formIds) {
      const result = new Map<string, StoredCounts>();
      if (formIds.length === 0) return result;
      // One `_id` lookup per form and document: FerretDB 1.24 uses an index for `_id` equality only.
      const byId = async <T>(find: (id: string) => Promise<T | null>): Promise<T[]> =>
        (await Promise.all(formIds.map(find))).filter((d): d is Awaited<T> & {} => d !== null) as T[];
      const [docs, deltas] = await Promise.all([
        byId((id) =>
          counters.findOne({ _id: id }, { projection: { orgId: 1, count: 1, spam: 1, lastAt: 1, held: 1 } }),
        ),
        byId((id) =>
          changeCounters.findOne({ _id: id }, { projection: { orgId: 1, count: 1, spam: 1, held: 1, lastAt: 1 } }),
        ),
      ]);
      const deltaOf = new Map(deltas.filter((d) => d.orgId === scope.orgId).map((d) => [d._id, d]));
      for (const d of docs) {
        if (d.orgId !== scope.orgId) continue;
        const delta = deltaOf.get(d._id);
        const lastAt = [d.lastAt, delta?.lastAt].filter((t): t is string => !!t).sort();
        result.set(d._id, {
          submissionCount: d.count + (delta?.count ?? 0),
          spamCount: (d.spam ?? 0) + (delta?.spam ?? 0),
          lastSubmissionAt: lastAt.at(-1) ?? null,
          heldCount: (d.held ?? 0) + (delta?.held ?? 0),
        });
      }
      return result;
    },
    async getDailyCounts(scope, formId, fromDay, toDay) {
      // `_id` lookups.
      const [counter, delta] = await Promise.all([
        counters.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } }),
        changeCounters.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } }),
      ]);
      if (!counter || counter.orgId !== scope.orgId) return [];
      const days = new Map<string, StoredDailyCount>();
      for (const source of [counter.days, delta?.orgId === scope.orgId ? delta.days : undefined]) {
        for (const [day, c] of Object.entries(source ?? {})) {
          if (day < fromDay || day > toDay) continue;
          const sum = days.get(day) ?? { day, total: 0, spam: 0 };
          days.set(day, { day, total: sum.total + (c.total ?? 0), spam: sum.spam + (c.spam ?? 0) });
        }
      }
      return [...days.values()].filter((d) => d.total > 0).sort((a, b) => (a.day < b.day ? -1 : 1));
    },
  };
}
