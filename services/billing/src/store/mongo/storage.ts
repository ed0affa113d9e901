import { createMongoTombstones, ignoreDuplicates, type MongoDb, updateEachOne } from '@formgate/store/mongo';
import type { StorageStore } from '../storage-store.ts';

interface StoredFilesDoc {
  /** The submission's id. */
  _id: string;
  orgId: string;
  formId: string | null;
  bytes: number;
  freed: boolean;
}

/**
 * `StorageStore` on MongoDB 7+ or FerretDB 1.24: one document per submission with files recorded or freed in
 * `stored_files` (a freed one stays, `freed: true`, as the tombstone), deleted forms in `freed_forms`, purged
 * organizations in `purged_orgs` (shared with the other ledgers). Recording inserts (a duplicate is left alone), then
 * looks for a form or organization tombstone again and frees what it wrote under one (a deletion at the same
 * moment). The sum is an aggregation over the organization's live documents.
 */
export function createMongoStorageStore(db: MongoDb): StorageStore {
  const files = db.collection<StoredFilesDoc>('stored_files');
  const forms = db.collection<{ _id: string; orgId: string }>('freed_forms');
  const freedForms = createMongoTombstones(db, 'freed_forms');
  const purged = createMongoTombstones(db, 'purged_orgs');

  // Both by _id.
  const goneAmong = async (orgIds: string[], formIds: string[]) => ({
    orgs: await purged.among(orgIds),
    forms: await freedForms.among(formIds),
  });

  return {
    async record(entries) {
      const withBytes = entries.filter((e) => e.bytes > 0);
      if (withBytes.length === 0) return;
      const before = await goneAmong(
        withBytes.map((e) => e.orgId),
        withBytes.map((e) => e.formId),
      );
      const live = withBytes.filter((e) => !before.orgs.has(e.orgId) && !before.forms.has(e.formId));
      if (live.length === 0) return;
      await files
        .insertMany(
          live.map((e) => ({ _id: e.id, orgId: e.orgId, formId: e.formId, bytes: e.bytes, freed: false })),
          { ordered: false },
        )
        .catch(ignoreDuplicates);
      const since = await goneAmong(
        live.map((e) => e.orgId),
        live.map((e) => e.formId),
      );
      // One at a time (rare: a purge or a form's deletion landed during the batch). Indexes org_freed (by its
      // prefix) and form.
      for (const orgId of since.orgs) await files.deleteMany({ orgId });
      for (const formId of since.forms) await files.updateMany({ formId }, { $set: { freed: true } });
    },
    async free(entries) {
      if (entries.length === 0) return;
      // By `_id`, one command each.
      await updateEachOne(
        files,
        entries.map((e) => ({
          filter: { _id: e.id },
          update: { $set: { freed: true }, $setOnInsert: { orgId: e.orgId, formId: null, bytes: 0 } },
          // An upsert racing `record`'s insert of the same id loses with a duplicate key; run again, it updates.
          upsert: true,
        })),
      );
    },
    async freeForm(scope, formId) {
      await forms.insertOne({ _id: formId, orgId: scope.orgId }).catch(ignoreDuplicates);
      // Index form.
      await files.updateMany({ orgId: scope.orgId, formId, freed: false }, { $set: { freed: true } });
    },
    async usedBytes(scope) {
      // Index org_freed.
      const [total] = await files
        .aggregate<{ bytes: number }>([
          { $match: { orgId: scope.orgId, freed: false } },
          { $group: { _id: null, bytes: { $sum: '$bytes' } } },
        ])
        .toArray();
      return total?.bytes ?? 0;
    },
    async purgeOrganization(scope) {
      await purged.add(scope.orgId);
      await files.deleteMany({ orgId: scope.orgId }); // index org_freed (by its prefix)
      // No index on orgId: a purge scans the deleted forms' tombstones, a small collection.
      await forms.deleteMany({ orgId: scope.orgId });
    },
    async close() {},
  };
}
