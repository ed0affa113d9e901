import type { Form } from '@formgate/contracts';
import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import { type FormsStore, SlugTakenError } from './forms-store.ts';
import { createMongoBlockedCounts } from './mongo-blocked-counts.ts';
import { createMongoFormDeletions } from './mongo-form-deletions.ts';
import { createMongoFormOutbox, FORM_PROJECTION, toForm } from './mongo-form-outbox.ts';
import { createHeldSubmissionIndexes, createMongoHeldSubmissions } from './mongo-held-submissions.ts';
import { migrateLegacySubmissions } from './mongo-legacy-submissions.ts';
import { createMongoSubmissionChanges } from './mongo-submission-changes.ts';
import {
  backfillSubmissionSearch,
  createMongoSubmissionQuery,
  createSubmissionQueryIndexes,
  type FindStrategy,
  isFerretDb,
} from './mongo-submission-query.ts';
import { createMongoSubmissions, createSubmissionIndexes } from './mongo-submissions.ts';
import { legacyLayout, pageLayout } from './page-buckets.ts';

/** A stored form; the outbox's marks live in collections of their own (`mongo-form-outbox.ts`). */
interface FormDoc extends Omit<Form, 'id'> {
  _id: string;
}

/**
 * `FormsStore` on MongoDB 7+ or FerretDB 1.24 (no transactions). The submissions read model is
 * `mongo-submissions.ts` (ADR 0015); submissions stored before it are moved into it here, before the store is used.
 * Lookups by id filter on `_id` alone and check the organization in the result.
 * `pageWidth` and `legacyPageWidth` (tests only: the widths of `pageLayout()` and `legacyLayout()`, ADR 0059) must
 * stay the same for the life of a database. `findStrategy` (tests) overrides how
 * filtered pages are read, chosen by the server otherwise (`FindStrategy`).
 */
export async function createMongoFormsStore(
  conn: MongoConnection,
  options: {
    pageWidth?: number;
    legacyPageWidth?: number;
    findStrategy?: FindStrategy;
    claimAbandonedMs?: number;
  } = {},
): Promise<FormsStore> {
  const db = conn.db;
  if (!db) throw new Error('createMongoFormsStore: the connection is not open');
  const layouts = { current: pageLayout(options.pageWidth), legacy: legacyLayout(options.legacyPageWidth) };
  const forms = db.collection<FormDoc>('forms');
  const outbox = createMongoFormOutbox(db, { claimAbandonedMs: options.claimAbandonedMs });
  await Promise.all([
    forms.createIndex({ orgId: 1, slug: 1 }, { unique: true, name: 'org_slug' }),
    forms.createIndex({ key: 1 }, { unique: true, name: 'key' }),
    forms.createIndex({ orgId: 1, createdAt: 1, _id: 1 }, { name: 'org_created' }),
    outbox.createIndexes(),
    createSubmissionIndexes(db),
    createSubmissionQueryIndexes(db),
    createHeldSubmissionIndexes(db),
  ]);
  await migrateLegacySubmissions(db, layouts.legacy);
  await backfillSubmissionSearch(db);
  const findStrategy = options.findStrategy ?? ((await isFerretDb(db)) ? 'buckets' : 'index');
  const deletions = createMongoFormDeletions(db);
  const { backfillCounters, ...changes } = createMongoSubmissionChanges(db);
  await backfillCounters();

  const rethrowSlug = async (err: unknown, form: Form): Promise<never> => {
    if (isDuplicateKeyError(err)) {
      const owner = await forms.findOne({ orgId: form.orgId, slug: form.slug }, { projection: { _id: 1 } });
      if (owner && owner._id !== form.id) throw new SlugTakenError(form.slug);
    }
    throw err;
  };

  return {
    async insertForm(form) {
      const { id, ...rest } = form;
      try {
        await forms.insertOne({ _id: id, ...rest });
      } catch (err) {
        await rethrowSlug(err, form);
      }
      await outbox.recordWritten(id, form.version);
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
      if (form.version !== expectedVersion + 1)
        throw new Error('replaceForm: the new version must follow the expected one');
      if (!(await outbox.claim(form))) return false;
      let replaced = false;
      try {
        const res = await forms.updateOne({ _id: id, orgId: form.orgId, version: expectedVersion }, { $set: rest });
        replaced = res.matchedCount === 1;
      } catch (err) {
        await outbox.release(id, form.version);
        return rethrowSlug(err, form);
      }
      if (!replaced) await outbox.release(id, form.version);
      return replaced;
    },
    listUnpublishedForms: outbox.listUnpublishedForms,
    markFormPublished: outbox.markFormPublished,
    ...createMongoSubmissions(db, layouts),
    ...createMongoSubmissionQuery(db, { strategy: findStrategy, layouts }),
    ...deletions,
    ...changes,
    ...createMongoHeldSubmissions(db),
    ...createMongoBlockedCounts(db),
    async close() {},
  };
}
