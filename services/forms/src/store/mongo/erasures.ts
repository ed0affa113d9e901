import type { SignedErasureReceipt } from '@formgate/contracts';
import { isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import type { Erasures, FoundSubmission } from '../erasures.ts';
import { Collections, type SubmissionDoc } from './schema.ts';

interface ErasureDoc {
  _id: string;
  orgId: string;
  erasedAt: string;
  signed: SignedErasureReceipt;
  /** Its audit entry was published (`Erasures.markAudited`). */
  audited: boolean;
}

/**
 * `Erasures` on MongoDB 7+ / FerretDB 1.24: a submission's address keys are an array on its document
 * (`addressKeys`, index `org_addresses`); receipts one document each in `form_erasures` (index `org_erased`).
 */
export function createMongoErasures(db: MongoDb): Erasures {
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  const erasures = db.collection<ErasureDoc>(Collections.erasures);
  return {
    async findByAddressKeys(scope, keys) {
      if (keys.length === 0) return [];
      // Index `org_addresses` (orgId, addressKeys) on MongoDB; FerretDB 1.24 pushes down the `orgId` equality.
      const docs = await submissions
        .find(
          { orgId: scope.orgId, addressKeys: { $in: [...keys] }, deleted: { $ne: true } },
          { projection: { _id: 1, formId: 1, createdAt: 1 } },
        )
        .toArray();
      return docs
        .map((d): FoundSubmission => ({ id: d._id, formId: d.formId, createdAt: d.createdAt }))
        .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
    },
    async saveReceipt(signed) {
      const { receipt } = signed;
      try {
        await erasures.insertOne({
          _id: receipt.id,
          orgId: receipt.orgId,
          erasedAt: receipt.erasedAt,
          signed,
          audited: false,
        });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
      }
    },
    async listReceipts(scope, limit) {
      // Index `org_erased`.
      const docs = await erasures.find({ orgId: scope.orgId }).sort({ erasedAt: -1, _id: -1 }).limit(limit).toArray();
      return docs.map((d) => d.signed);
    },
    async listUnaudited(limit) {
      if (limit <= 0) return [];
      // A scan of the receipts (an erasure is rare; published within seconds).
      const docs = await erasures.find({ audited: false }).sort({ erasedAt: 1 }).limit(limit).toArray();
      return docs.map((d) => d.signed);
    },
    async markAudited(id) {
      await erasures.updateOne({ _id: id }, { $set: { audited: true } }); // by `_id`
    },
    // The server reuses the space of deleted documents itself; it cannot be asked to wipe it (docs/privacy.md).
    async compact() {},
    async getReceipt(scope, id) {
      // By `_id`; the organization is checked on the document.
      const doc = await erasures.findOne({ _id: id });
      return doc && doc.orgId === scope.orgId ? doc.signed : null;
    },
  };
}
