import type { MongoConnection } from '@formgate/store/mongo';
import type { SubmissionRecord } from './submission-record.ts';

type MongoDb = NonNullable<MongoConnection['db']>;

/** One per form: the field names of its submissions, in the order first seen (the export's columns). */
export interface FieldNamesDoc {
  _id: string;
  orgId: string;
  names: string[];
}

export const FIELD_NAMES = 'form_field_names';

/** Most names kept per form; names seen after that are not columns of the export (their values are still kept). */
export const MAX_FIELD_NAMES = 1_000;

/** Adds the field names of a batch to each form's list (`$addToSet`: a redelivered batch adds nothing). */
export async function recordFieldNames(
  db: MongoDb,
  batches: readonly { formId: string; orgId: string; records: readonly Pick<SubmissionRecord, 'fields'>[] }[],
): Promise<void> {
  const names = db.collection<FieldNamesDoc>(FIELD_NAMES);
  await Promise.all(
    batches.map(async ({ formId, orgId, records }) => {
      const seen = [...new Set(records.flatMap((r) => r.fields.map((f) => f.name)))];
      if (seen.length === 0) return;
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
