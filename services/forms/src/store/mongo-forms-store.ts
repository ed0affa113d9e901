import type { Form } from '@formgate/contracts';
import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import { type FormsStore, SlugTakenError, type SubmissionRecord } from './forms-store.ts';
import { createMongoFormDeletions } from './mongo-form-deletions.ts';

/** A stored form: the `Form` plus its outbox mark; `pending` ⇔ `publishedVersion < version` (indexable). */
interface FormDoc extends Omit<Form, 'id'> {
  _id: string;
  publishedVersion: number;
  pending: boolean;
}

interface SubmissionDoc extends Omit<SubmissionRecord, 'id'> {
  _id: string;
}

interface CounterDoc {
  _id: string;
  orgId: string;
  count: number;
}

const FORM_PROJECTION = { publishedVersion: 0, pending: 0 } as const;
const SUBMISSION_PROJECTION = {
  _id: 1,
  formId: 1,
  orgId: 1,
  createdAt: 1,
  fields: 1,
  files: 1,
  spam: 1,
  held: 1,
} as const;
const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/** The document `insertSubmissions` stores for a record. Field names stay values inside `{name, value}` pairs. */
export function submissionDoc(r: SubmissionRecord): SubmissionDoc {
  return {
    _id: r.id,
    formId: r.formId,
    orgId: r.orgId,
    createdAt: r.createdAt,
    fields: r.fields.map((f) => ({ name: f.name, value: f.value })),
    files: r.files,
    spam: r.spam,
    held: r.held,
  };
}

const toForm = (doc: Omit<FormDoc, 'publishedVersion' | 'pending'> | null, orgId?: string): Form | null => {
  if (!doc || (orgId !== undefined && doc.orgId !== orgId)) return null;
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
};

const toRecord = (doc: SubmissionDoc | null, scope?: { orgId: string; formId: string }): SubmissionRecord | null => {
  if (!doc || (scope && (doc.orgId !== scope.orgId || doc.formId !== scope.formId))) return null;
  const { _id, ...rest } = doc;
  return { id: _id, ...rest };
};

/**
 * Indexes of the documents an unordered `insertMany` refused as duplicates; rethrows any other failure
 * (every document not listed was inserted).
 */
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

/**
 * `FormsStore` on MongoDB 7+ or FerretDB 1.24 (no transactions). Submissions go in with one unordered
 * `insertMany`; each form's counter is `$inc`-ed by what was new. A batch that meets an already stored submission
 * (a redelivery, e.g. after a crash between the insert and the `$inc`) recounts that form with `countDocuments`
 * and `$set`s the counter, which makes it exact again.
 * Lookups by id filter on `_id` alone and check the organization in the result: FerretDB's SQLite backend pushes
 * only a bare `{_id}` filter down to SQLite and scans the collection for any other filter.
 */
export async function createMongoFormsStore(conn: MongoConnection): Promise<FormsStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoFormsStore: the connection is not open');
  const forms = db.collection<FormDoc>('forms');
  const submissions = db.collection<SubmissionDoc>('submissions');
  const counters = db.collection<CounterDoc>('form_counters');
  await Promise.all([
    forms.createIndex({ orgId: 1, slug: 1 }, { unique: true, name: 'org_slug' }),
    forms.createIndex({ key: 1 }, { unique: true, name: 'key' }),
    forms.createIndex({ orgId: 1, createdAt: 1, _id: 1 }, { name: 'org_created' }),
    forms.createIndex({ pending: 1 }, { name: 'pending' }),
    submissions.createIndex({ formId: 1, createdAt: -1, _id: -1 }, { name: 'form_newest' }),
  ]);
  const deletions = createMongoFormDeletions(db);

  const rethrowSlug = async (err: unknown, form: Form): Promise<never> => {
    if (isDuplicateKeyError(err)) {
      const owner = await forms.findOne({ orgId: form.orgId, slug: form.slug }, { projection: { _id: 1 } });
      if (owner && owner._id !== form.id) throw new SlugTakenError(form.slug);
    }
    throw err;
  };

  const setCounter = async (formId: string, orgId: string, count: number, how: '$inc' | '$set') => {
    const update = how === '$inc' ? { $inc: { count }, $setOnInsert: { orgId } } : { $set: { count, orgId } };
    for (let attempt = 0; ; attempt++) {
      try {
        await counters.updateOne({ _id: formId }, update, { upsert: true });
        return;
      } catch (err) {
        if (!isDuplicateKeyError(err) || attempt > 0) throw err;
      }
    }
  };

  return {
    async insertForm(form) {
      const { id, ...rest } = form;
      try {
        await forms.insertOne({ _id: id, ...rest, publishedVersion: 0, pending: true });
      } catch (err) {
        await rethrowSlug(err, form);
      }
    },
    getForm: async (scope, formId) =>
      toForm(await forms.findOne({ _id: formId }, { projection: FORM_PROJECTION }), scope.orgId),
    getFormBySlug: async (scope, slug) =>
      toForm(await forms.findOne({ orgId: scope.orgId, slug }, { projection: FORM_PROJECTION })),
    async listForms(scope) {
      const docs = await forms
        .find({ orgId: scope.orgId }, { projection: FORM_PROJECTION })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map((d) => toForm(d) as Form);
    },
    async replaceForm(form, expectedVersion) {
      const { id, ...rest } = form;
      try {
        const res = await forms.updateOne(
          { _id: id, orgId: form.orgId, version: expectedVersion },
          { $set: { ...rest, pending: true } },
        );
        return res.matchedCount === 1;
      } catch (err) {
        return rethrowSlug(err, form);
      }
    },
    async listUnpublishedForms(limit) {
      if (limit <= 0) return [];
      const docs = await forms.find({ pending: true }, { projection: FORM_PROJECTION }).limit(limit).toArray();
      return docs.map((d) => toForm(d) as Form);
    },
    async markFormPublished(formId, version) {
      const caughtUp = await forms.updateOne(
        { _id: formId, version: { $lte: version }, publishedVersion: { $lt: version } },
        { $set: { publishedVersion: version, pending: false } },
      );
      if (caughtUp.matchedCount === 0) {
        await forms.updateOne(
          { _id: formId, publishedVersion: { $lt: version } },
          { $set: { publishedVersion: version } },
        );
      }
    },
    async insertSubmissions(records) {
      const docs = [...new Map(records.map((r) => [r.id, r] as const)).values()].map(submissionDoc);
      if (docs.length === 0) return 0;
      let refused = new Set<number>();
      try {
        await submissions.insertMany(docs, { ordered: false });
      } catch (err) {
        refused = duplicateIndexes(err);
      }
      const added = new Map<string, { orgId: string; n: number }>();
      const recount = new Map<string, string>();
      for (const [i, d] of docs.entries()) {
        if (refused.has(i)) {
          recount.set(d.formId, d.orgId);
          continue;
        }
        const slot = added.get(d.formId) ?? { orgId: d.orgId, n: 0 };
        slot.n += 1;
        added.set(d.formId, slot);
      }
      await Promise.all([
        ...[...added]
          .filter(([formId]) => !recount.has(formId))
          .map(([formId, { orgId, n }]) => setCounter(formId, orgId, n, '$inc')),
        ...[...recount].map(async ([formId, orgId]) =>
          setCounter(formId, orgId, await submissions.countDocuments({ formId }), '$set'),
        ),
      ]);
      return docs.length - refused.size;
    },
    async listSubmissions(scope, formId, { limit, after }) {
      if (limit <= 0) return [];
      const keyset = after
        ? { $or: [{ createdAt: { $lt: after.createdAt } }, { createdAt: after.createdAt, _id: { $lt: after.id } }] }
        : {};
      const docs = await submissions
        .find({ formId, orgId: scope.orgId, ...keyset }, { projection: SUBMISSION_PROJECTION })
        .sort(NEWEST_FIRST)
        .limit(limit)
        .toArray();
      return docs.map((d) => toRecord(d) as SubmissionRecord);
    },
    getSubmission: async (scope, formId, id) =>
      toRecord(await submissions.findOne({ _id: id }, { projection: SUBMISSION_PROJECTION }), {
        orgId: scope.orgId,
        formId,
      }),
    async countSubmissions(scope, formId) {
      const counter = await counters.findOne({ _id: formId });
      return counter?.orgId === scope.orgId ? counter.count : 0;
    },
    ...deletions,
    async close() {},
  };
}
