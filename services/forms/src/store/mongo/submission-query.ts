import { type MongoDb, type PageLayout, type PageRead, readDownPageBuckets } from '@formgate/store/mongo';
import { csvLinesOf } from '../csv-lines.ts';
import type { StoredSubmission, SubmissionFilter } from '../records.ts';
import type { SubmissionReadModel } from '../submission-read-model.ts';
import {
  Collections,
  type CounterDoc,
  type FieldNamesDoc,
  PROJECTION,
  type SubmissionDoc,
  toStored,
} from './schema.ts';

type SubmissionQuery = Parameters<ReturnType<typeof collectionOf>['deleteMany']>[0];
const collectionOf = (db: MongoDb) => db.collection<SubmissionDoc>(Collections.submissions);

type QueryMethods = Pick<
  SubmissionReadModel,
  'findSubmissions' | 'exportSubmissions' | 'exportCsvLines' | 'listFieldNames'
>;

/** Documents read per round trip while exporting. */
const EXPORT_BATCH = 500;

/**
 * How a filtered page is read, as the server needs (`pageReadFor`, chosen when the stores are built):
 * - `index`: one `find(filter).sort({seq: -1}).limit(n)`, served in order by the indexes of migration 1;
 * - `buckets`: page buckets first (`readDownPageBuckets`), each read an equality on `buckets` that decodes ≤ a
 *   bucket's width of documents, newest first; once the matches seen so far predict at most `GLOBAL_MAX_MATCHES`
 *   further matches below, or after `MAX_BUCKET_READS` reads, the rest in one global find. Its export is not sorted
 *   (storage order, see `exportSubmissions`).
 */
const GLOBAL_MAX_MATCHES = 2_000;
const MAX_BUCKET_READS = 8;

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
 * time. On MongoDB the indexes `form_seq_time`, `form_spam`, `form_held` and `form_terms` serve each filter in list
 * order; FerretDB 1.24 pushes down the equalities only and sorts in Go, hence the `buckets` read there.
 */
export function createMongoSubmissionQuery(
  db: MongoDb,
  options: { pageRead: PageRead; layout: PageLayout },
): QueryMethods {
  const submissions = collectionOf(db);
  const counters = db.collection<CounterDoc>(Collections.counters);
  const names = db.collection<FieldNamesDoc>(Collections.fieldNames);
  const read = async (query: Record<string, unknown>, limit: number) =>
    (
      await submissions
        .find(query as NonNullable<SubmissionQuery>, { projection: PROJECTION })
        .sort({ seq: -1 })
        .limit(limit)
        .toArray()
    ).map(toStored);

  /** The `buckets` read (see `GLOBAL_MAX_MATCHES`). */
  async function byBuckets(orgId: string, formId: string, filter: SubmissionFilter, limit: number, after?: number) {
    const counter = await counters.findOne({ _id: formId }); // by `_id`
    if (!counter || counter.orgId !== orgId) return [];
    return readDownPageBuckets<StoredSubmission>({
      before: Math.min(after ?? Number.POSITIVE_INFINITY, counter.seq),
      limit,
      layout: options.layout,
      // Index `form_page` (formId, buckets, seq); the other criteria are checked on the bucket's documents.
      readBucket: (key, before, n) => read({ ...filterQuery(orgId, formId, filter, before), buckets: key }, n),
      // The equalities FerretDB pushes down (formId, orgId, …), the rest decoded and sorted in Go.
      readRest: {
        read: (before, n) => read(filterQuery(orgId, formId, filter, before), n),
        maxReads: MAX_BUCKET_READS,
        maxMatches: GLOBAL_MAX_MATCHES,
      },
    });
  }

  const methods: QueryMethods = {
    async findSubmissions(scope, formId, { filter, limit, after }) {
      if (limit <= 0) return [];
      if (options.pageRead === 'buckets') return byBuckets(scope.orgId, formId, filter, limit, after?.seq);
      // MongoDB: index `form_spam`, `form_held`, `form_terms` or `form_seq_time`, each ending in `seq: -1`.
      return read(filterQuery(scope.orgId, formId, filter, after?.seq), limit);
    },
    async *exportSubmissions(scope, formId, filter) {
      // The indexes of `findSubmissions` on MongoDB (`form_seq_time` for a whole form); on FerretDB the equalities
      // pushed down.
      const query = submissions.find(filterQuery(scope.orgId, formId, filter), { projection: PROJECTION });
      // FerretDB 1.24 sorts in Go after decoding every match: 100,000 took longer than the gateway's 10 s before
      // the first byte. Unsorted, it streams from a PostgreSQL cursor; the order is then storage order.
      const cursor = (options.pageRead === 'index' ? query.sort({ seq: -1 }) : query).batchSize(EXPORT_BATCH);
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
    // The documents keep no CSV lines: each is formatted as it is read.
    exportCsvLines: (scope, formId, filter, columns) =>
      csvLinesOf(methods.exportSubmissions(scope, formId, filter), columns),
    async listFieldNames(scope, formId) {
      const doc = await names.findOne({ _id: formId }); // by `_id`
      return doc && doc.orgId === scope.orgId ? doc.names : [];
    },
  };
  return methods;
}
