import { ignoreDuplicates, type MongoDb, updateEachOne } from '@formgate/store/mongo';
import type { FormsStore, SubmissionFilter } from './forms-store.ts';
import { FIELD_NAMES, type FieldNamesDoc, recordFieldNames } from './mongo-field-names.ts';
import {
  COUNTERS,
  type CounterDoc,
  PROJECTION,
  SUBMISSIONS,
  type SubmissionDoc,
  toStored,
} from './mongo-submissions.ts';
import { type FormPages, formBucketBelow } from './page-buckets.ts';
import { searchTerms } from './search-terms.ts';
import type { StoredSubmission } from './submission-record.ts';

type SubmissionQuery = Parameters<ReturnType<typeof collectionOf>['deleteMany']>[0];
const collectionOf = (db: MongoDb) => db.collection<SubmissionDoc>(SUBMISSIONS);

type QueryMethods = Pick<FormsStore, 'findSubmissions' | 'exportSubmissions' | 'listFieldNames'>;

/** Documents read per round trip while exporting. */
const EXPORT_BATCH = 500;

/**
 * How a filtered page is read:
 * - `index` (MongoDB): one `find(filter).sort({seq: -1}).limit(n)`, served in order by the indexes below;
 * - `buckets` (FerretDB 1.24, where that find decodes and sorts every match of the form in Go — over 10 s for a
 *   word in all of 100,000 submissions): page buckets first (ADR 0015), each read an equality on `buckets` that
 *   decodes ≤ a bucket's width of documents, newest first; once the matches seen so far predict at most
 *   `GLOBAL_MAX_MATCHES` further matches below, or after `MAX_BUCKET_READS` reads, the rest in one global find.
 *   Its export is not sorted (storage order, see `exportSubmissions`).
 */
export type FindStrategy = 'index' | 'buckets';
const GLOBAL_MAX_MATCHES = 2_000;
const MAX_BUCKET_READS = 8;

/** FerretDB answers `buildInfo` with its own version fields. */
export async function isFerretDb(db: MongoDb): Promise<boolean> {
  const info = await db.admin().command({ buildInfo: 1 });
  return Object.keys(info).some((k) => k.toLowerCase().startsWith('ferretdb'));
}

/** The query of a filtered list: equalities first, then the `createdAt` range and the position bound. */
export function filterQuery(
  orgId: string,
  formId: string,
  filter: SubmissionFilter,
  before?: number,
): NonNullable<SubmissionQuery> {
  // `deleted`: a tombstone left by deleting a submission (submission changes) is never listed or exported.
  const q: Record<string, unknown> = { formId, orgId, deleted: { $ne: true } };
  if (filter.spam !== undefined) q['spam.isSpam'] = filter.spam;
  if (filter.held !== undefined) q.held = filter.held;
  const terms = filter.terms ?? [];
  if (terms.length === 1) q.terms = terms[0];
  else if (terms.length > 1) q.terms = { $all: terms };
  if (filter.from !== undefined || filter.to !== undefined) {
    q.createdAt = {
      ...(filter.from === undefined ? {} : { $gte: filter.from }),
      ...(filter.to === undefined ? {} : { $lt: filter.to }),
    };
  }
  if (before !== undefined) q.seq = { $lt: before };
  return q as NonNullable<SubmissionQuery>;
}

/**
 * Filters, search and export on MongoDB / FerretDB 1.24 (ADR 0022). A filtered page is
 * `find(filterQuery).sort({seq: -1}).limit(n)`; an export is the same query as one cursor read `EXPORT_BATCH` at a
 * time. On MongoDB the indexes of `createSubmissionQueryIndexes` serve each filter in list order; FerretDB 1.24
 * pushes down the equalities only and sorts in Go, so there each filtered page costs a scan of the collection plus
 * a sort of the form's matching documents.
 */
export function createMongoSubmissionQuery(
  db: MongoDb,
  options: { strategy: FindStrategy; layouts: Omit<FormPages, 'pagesFrom'> },
): QueryMethods {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);
  const names = db.collection<FieldNamesDoc>(FIELD_NAMES);
  const read = async (query: Record<string, unknown>, limit: number) =>
    (
      await submissions
        .find(query as NonNullable<SubmissionQuery>, { projection: PROJECTION })
        .sort({ seq: -1 })
        .limit(limit)
        .toArray()
    ).map(toStored);

  /** The `buckets` strategy (see `FindStrategy`). */
  async function byBuckets(orgId: string, formId: string, filter: SubmissionFilter, limit: number, after?: number) {
    const counter = await counters.findOne({ _id: formId });
    if (!counter || counter.orgId !== orgId) return [];
    const page: StoredSubmission[] = [];
    let before = Math.min(after ?? Number.POSITIVE_INFINITY, counter.seq ?? 0);
    let covered = 0;
    const pages = { ...options.layouts, pagesFrom: counter.pagesFrom };
    for (let reads = 0; page.length < limit && before > 0; reads++) {
      if (reads > 0 && (reads >= MAX_BUCKET_READS || (page.length / covered) * before <= GLOBAL_MAX_MATCHES)) {
        page.push(...(await read(filterQuery(orgId, formId, filter, before), limit - page.length)));
        return page;
      }
      const { key, low } = formBucketBelow(before, pages);
      page.push(...(await read({ ...filterQuery(orgId, formId, filter, before), buckets: key }, limit - page.length)));
      covered += before - low;
      before = low;
    }
    return page;
  }

  return {
    async findSubmissions(scope, formId, { filter, limit, after }) {
      if (limit <= 0) return [];
      if (options.strategy === 'buckets') return byBuckets(scope.orgId, formId, filter, limit, after?.seq);
      return read(filterQuery(scope.orgId, formId, filter, after?.seq), limit);
    },
    async *exportSubmissions(scope, formId, filter) {
      const query = submissions.find(filterQuery(scope.orgId, formId, filter), { projection: PROJECTION });
      // FerretDB 1.24 sorts in Go after decoding every match: 100,000 took longer than the gateway's 10 s before
      // the first byte. Unsorted, it streams from a PostgreSQL cursor; the order is then storage order.
      const cursor = (options.strategy === 'index' ? query.sort({ seq: -1 }) : query).batchSize(EXPORT_BATCH);
      try {
        let batch: StoredSubmission[] = [];
        for await (const doc of cursor) {
          batch.push(toStored(doc));
          if (batch.length === EXPORT_BATCH) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      } finally {
        await cursor.close();
      }
    },
    async listFieldNames(scope, formId) {
      const doc = await names.findOne({ _id: formId });
      return doc && doc.orgId === scope.orgId ? doc.names : [];
    },
  };
}

/**
 * Indexes for filtered lists on MongoDB (equality, sort, range), each ending in `seq: -1` so a page needs no SORT:
 * - `form_seq_time {formId, seq: -1, createdAt}`: a date range (checked on the index keys while walking the form's
 *   list, no fetch for keys outside it) and the export of a whole form;
 * - `form_spam {formId, spam.isSpam, seq: -1}`, `form_held {formId, held, seq: -1}`;
 * - `form_terms {formId, terms, seq: -1}` (multikey): a search walks the list of its first term.
 */
export async function createSubmissionQueryIndexes(db: MongoDb): Promise<void> {
  const submissions = db.collection(SUBMISSIONS);
  await Promise.all([
    submissions.createIndex({ formId: 1, seq: -1, createdAt: 1 }, { name: 'form_seq_time' }),
    submissions.createIndex({ formId: 1, 'spam.isSpam': 1, seq: -1 }, { name: 'form_spam' }),
    submissions.createIndex({ formId: 1, held: 1, seq: -1 }, { name: 'form_held' }),
    submissions.createIndex({ formId: 1, terms: 1, seq: -1 }, { name: 'form_terms' }),
  ]);
}

/** One-off migrations that finished, by name: `{_id, at}` (checked by `_id` at boot instead of run again). */
export const MIGRATIONS = 'form_migrations';
const SEARCH_TERMS_DONE = 'submission-search-terms';

/**
 * Gives documents stored before search their `terms`, and their forms their field names, a batch at a time, at
 * boot (before the consumers start). Repeatable: a run cut short continues where the documents still lack `terms`.
 * Once a run finds none it records so in `form_migrations`, and later boots skip it: the query reads every
 * submission on FerretDB 1.24 (`$exists` is not pushed down), minutes at boot on a large database.
 */
export async function backfillSubmissionSearch(db: MongoDb): Promise<number> {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const migrations = db.collection<{ _id: string; at: string }>(MIGRATIONS);
  if (await migrations.findOne({ _id: SEARCH_TERMS_DONE })) return 0;
  let done = 0;
  for (;;) {
    const docs = await submissions
      .find({ terms: { $exists: false } }, { projection: { _id: 1, formId: 1, orgId: 1, seq: 1, fields: 1 } })
      .limit(1_000)
      .toArray();
    if (docs.length === 0) {
      await migrations.insertOne({ _id: SEARCH_TERMS_DONE, at: new Date().toISOString() }).catch(ignoreDuplicates);
      return done;
    }
    docs.sort((a, b) => a.seq - b.seq);
    const byForm = new Map<string, { formId: string; orgId: string; records: SubmissionDoc[] }>();
    for (const d of docs) {
      const g = byForm.get(d.formId) ?? { formId: d.formId, orgId: d.orgId, records: [] };
      g.records.push(d);
      byForm.set(d.formId, g);
    }
    await recordFieldNames(db, [...byForm.values()]);
    await updateEachOne(
      submissions,
      docs.map((d) => ({ filter: { _id: d._id }, update: { $set: { terms: searchTerms(d.fields) } } })),
    );
    done += docs.length;
  }
}
