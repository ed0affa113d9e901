import { ignoreDuplicates, type MongoConnection } from '@formgate/store/mongo';
import { recordFieldNames } from './mongo-field-names.ts';
import { COUNTERS, type CounterDoc, SUBMISSIONS, type SubmissionDoc, submissionDoc } from './mongo-submissions.ts';
import type { PageLayout } from './page-buckets.ts';
import type { SubmissionRecord } from './submission-record.ts';

type MongoDb = NonNullable<MongoConnection['db']>;

/** Where submissions were stored before ADR 0015: one document per submission, no positions. */
export const LEGACY_SUBMISSIONS = 'submissions';

type LegacyDoc = Omit<SubmissionRecord, 'id'> & { _id: string };

const CHUNK = 1_000;

async function insertIgnoringDuplicates(db: MongoDb, docs: SubmissionDoc[]): Promise<void> {
  if (docs.length === 0) return;
  const [first] = docs;
  if (first) await recordFieldNames(db, [{ formId: first.formId, orgId: first.orgId, records: docs }]);
  await db.collection<SubmissionDoc>(SUBMISSIONS).insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
}

/**
 * Moves the submissions of every form whose counter has no `seq` from `submissions` into `form_submissions`, one
 * form at a time: positions in (`createdAt`, `_id`) order, then the counter gets its `seq` and exact count, then
 * the old documents go. A move cut short is repeated whole at the next start: the old documents are still there,
 * they get the same positions again, and the copies already made are refused as duplicates. Run before the
 * consumers start. Returns how many forms it moved. The moved documents are filed under the `legacy` layout (their
 * counter gets no `pagesFrom`): a move cut short by an older version wrote them so, and a repeated move keeps them.
 */
export async function migrateLegacySubmissions(db: MongoDb, legacy: PageLayout): Promise<number> {
  const old = db.collection<LegacyDoc>(LEGACY_SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);
  const forms = await counters.find({ seq: { $exists: false } }, { projection: { _id: 1 } }).toArray();
  for (const { _id: formId } of forms) {
    let seq = 0;
    let chunk: SubmissionDoc[] = [];
    for await (const { _id, ...rest } of old.find({ formId }).sort({ createdAt: 1, _id: 1 }).batchSize(CHUNK)) {
      chunk.push(submissionDoc({ id: _id, ...rest }, seq++, legacy));
      if (chunk.length === CHUNK) {
        await insertIgnoringDuplicates(db, chunk);
        chunk = [];
      }
    }
    await insertIgnoringDuplicates(db, chunk);
    // Conditional: a second instance starting at the same time may read the old documents while they are deleted.
    await counters.updateOne({ _id: formId, seq: { $exists: false } }, { $set: { seq, count: seq } });
    await old.deleteMany({ formId });
  }
  if (forms.length > 0 && (await old.countDocuments({}, { limit: 1 })) === 0) {
    await old.drop().catch(() => undefined); // already dropped by another instance
  }
  return forms.length;
}
