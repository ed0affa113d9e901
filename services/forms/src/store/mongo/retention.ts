import type { MongoDb } from '@formgate/store/mongo';
import type { FoundSubmission } from '../erasures.ts';
import type { RetentionStore } from '../retention.ts';
import { Collections, type FormDoc, type SubmissionDoc, toForm } from './schema.ts';

/** `RetentionStore` on MongoDB / FerretDB: defaults in `form_org_retention`, submissions by `form_live_time`. */
export function createMongoRetention(db: MongoDb): RetentionStore {
  const defaults = db.collection<{ _id: string; days: number | null }>(Collections.orgRetention);
  const forms = db.collection<FormDoc>(Collections.forms);
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  // The live ones have no `deleted` field: MongoDB bounds the index on null for it.
  const live = (scope: { orgId: string }, formId: string) => ({
    formId,
    deleted: { $exists: false },
    orgId: scope.orgId,
  });
  return {
    async getOrgDays(scope) {
      return (await defaults.findOne({ _id: scope.orgId }))?.days ?? null;
    },
    async setOrgDays(scope, days) {
      await defaults.replaceOne({ _id: scope.orgId }, { days }, { upsert: true });
    },
    async listForms(afterId, limit) {
      const docs = await forms
        .find({ _id: { $gt: afterId } })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.flatMap((d) => toForm(d) ?? []);
    },
    async listExpired(scope, formId, before, limit) {
      const docs = await submissions
        .find(
          { ...live(scope, formId), createdAt: { $lt: before } },
          { projection: { _id: 1, formId: 1, createdAt: 1 } },
        )
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map((d): FoundSubmission => ({ id: d._id, formId: d.formId, createdAt: d.createdAt }));
    },
    async oldestAt(scope, formId) {
      const [doc] = await submissions
        .find(live(scope, formId), { projection: { createdAt: 1 } })
        .sort({ createdAt: 1 })
        .limit(1)
        .toArray();
      return doc?.createdAt ?? null;
    },
  };
}
