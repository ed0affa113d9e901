import type { Form } from '@formgate/contracts';
import { ignoreDuplicates, isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import { type FormRepository, SlugTakenError } from '../form-repository.ts';
import { createMongoFormOutbox } from './form-outbox.ts';
import { Collections, type DeletionDoc, type FormDoc, type SubmissionDoc, toForm } from './schema.ts';

/**
 * `FormRepository` on MongoDB 7+ or FerretDB 1.24 (no transactions). Lookups by id filter on `_id` alone and check
 * the organization in the result. A form's versions go through the outbox of `form-outbox.ts`. Without
 * transactions a deletion or purge goes in steps that can each be repeated: the deletion is written first, then
 * what the form stored goes, the form last, so a purge cut short leaves the forms for the redelivered event to
 * find again. `claimAbandonedMs` (tests): when a replacement's claim counts as abandoned.
 */
export function createMongoFormRepository(db: MongoDb, options: { claimAbandonedMs?: number } = {}): FormRepository {
  const forms = db.collection<FormDoc>(Collections.forms);
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  const deletions = db.collection<DeletionDoc>(Collections.formDeletions);
  const byForm = (name: string) => db.collection<{ _id: string; formId: string; orgId: string }>(name);
  const outbox = createMongoFormOutbox(db, { claimAbandonedMs: options.claimAbandonedMs });

  const rethrowSlug = async (err: unknown, form: Form): Promise<never> => {
    if (isDuplicateKeyError(err)) {
      // Index `org_slug`.
      const owner = await forms.findOne({ orgId: form.orgId, slug: form.slug }, { projection: { _id: 1 } });
      if (owner && owner._id !== form.id) throw new SlugTakenError(form.slug);
    }
    throw err;
  };
  const writeDeletions = async (doomed: DeletionDoc[]) => {
    const docs = doomed.map((f) => ({ _id: f._id, orgId: f.orgId, key: f.key, version: f.version + 1 }));
    if (docs.length > 0) await deletions.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
  };

  const { recordWritten, claim, release, ...publishing } = outbox;
  return {
    async insertForm(form) {
      const { id, ...rest } = form;
      try {
        await forms.insertOne({ _id: id, ...rest });
      } catch (err) {
        await rethrowSlug(err, form);
      }
      await recordWritten(id, form.version);
    },
    // By `_id`; the organization is checked on the document.
    getForm: async (scope, formId) => toForm(await forms.findOne({ _id: formId }), scope.orgId),
    // Index `org_slug` (orgId, slug).
    getFormBySlug: async (scope, slug) => toForm(await forms.findOne({ orgId: scope.orgId, slug })),
    async listForms(scope) {
      // Index `org_created` (orgId, createdAt, _id).
      const docs = await forms.find({ orgId: scope.orgId }).sort({ createdAt: 1, _id: 1 }).toArray();
      return docs.map((d) => toForm(d) as Form);
    },
    async replaceForm(form, expectedVersion) {
      const { id, ...rest } = form;
      if (form.version !== expectedVersion + 1)
        throw new Error('replaceForm: the new version must follow the expected one');
      if (!(await claim(form))) return false;
      let replaced = false;
      try {
        // By `_id`; the organization and the version are checked on the document.
        const res = await forms.updateOne({ _id: id, orgId: form.orgId, version: expectedVersion }, { $set: rest });
        replaced = res.matchedCount === 1;
      } catch (err) {
        await release(id, form.version);
        return rethrowSlug(err, form);
      }
      if (!replaced) await release(id, form.version);
      return replaced;
    },
    async deleteForm(scope, formId) {
      // By `_id`, the read and the delete.
      const form = await forms.findOne({ _id: formId }, { projection: { orgId: 1, key: 1, version: 1 } });
      if (!form || form.orgId !== scope.orgId) return null;
      await writeDeletions([form]);
      // The relay may complete the deletion (and delete the form) as soon as it is written: it is ours either way.
      await forms.deleteOne({ _id: formId, orgId: scope.orgId });
      return form.version + 1;
    },
    ...publishing,
    async listFormBlobKeys(formId) {
      // Index `form_seq_time` (formId, …) on MongoDB; FerretDB 1.24 pushes the equality down.
      const docs = await submissions.find({ formId }, { projection: { files: 1 } }).toArray();
      return docs.flatMap((d) => (d.files ?? []).map((f) => f.blobKey));
    },
    async purgeDeletedForm(formId) {
      // By `_id`, but the submissions (index `form_seq_time`, by its prefix) and the changes (no index: the `formId`
      // equality, pushed down on FerretDB, over the short outbox of pending changes).
      await forms.deleteOne({ _id: formId });
      await submissions.deleteMany({ formId });
      await byForm(Collections.counters).deleteOne({ _id: formId });
      await byForm(Collections.changeCounters).deleteOne({ _id: formId });
      await byForm(Collections.submissionChanges).deleteMany({ formId });
      await byForm(Collections.blockedCounts).deleteOne({ _id: formId });
      await byForm(Collections.fieldNames).deleteOne({ _id: formId });
    },
    async purgeOrganization(scope) {
      // Index `org_created`.
      const doomed = await forms
        .find({ orgId: scope.orgId }, { projection: { _id: 1, orgId: 1, key: 1, version: 1 } })
        .toArray();
      await writeDeletions(doomed);
      // Index `form_seq_time` per form for the submissions; no index for the counters, changes and field names (the
      // `orgId` equality FerretDB pushes down, over one document per form or per pending change); the rest by `_id`.
      for (const f of doomed) await submissions.deleteMany({ formId: f._id });
      for (const name of [Collections.counters, Collections.submissionChanges, Collections.changeCounters]) {
        await byForm(name).deleteMany({ orgId: scope.orgId });
      }
      await byForm(Collections.fieldNames).deleteMany({ orgId: scope.orgId });
      for (const f of doomed) await byForm(Collections.blockedCounts).deleteOne({ _id: f._id });
      await byForm(Collections.releaseLedgers).deleteOne({ _id: scope.orgId });
      await byForm(Collections.orgRetention).deleteOne({ _id: scope.orgId });
      // Index `org_erased`.
      await byForm(Collections.erasures).deleteMany({ orgId: scope.orgId });
      // Only the forms that have their deletion written: one created meanwhile is not deleted unannounced. By `_id`
      // (an `$in`: on FerretDB 1.24 a scan of `forms`, once per purge).
      if (doomed.length === 0) return 0;
      const { deletedCount } = await forms.deleteMany({ _id: { $in: doomed.map((f) => f._id) } });
      return deletedCount;
    },
  };
}
