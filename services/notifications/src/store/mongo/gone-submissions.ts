import { findByIds, insertOnce, type MongoDb } from '@formgate/store/mongo';
import type { GoneSubmissions } from '../gone-submissions.ts';

/** A tombstone: `_id` is the submission id. */
interface GoneDoc {
  _id: string;
  orgId: string;
  goneAt: string;
}

/**
 * `GoneSubmissions` on MongoDB 7+ or FerretDB 1.24: a tombstone is a unique insert, the first one kept. A batch's
 * ids are read by `_id` one at a time (`findByIds`), where one `$in` would do on MongoDB: FerretDB 1.24 answers an
 * `$in` by reading the whole collection, and this one only grows (ADR 56). Only batches of a consumer behind read.
 */
export function createMongoGoneSubmissions(db: MongoDb): GoneSubmissions {
  const gone = db.collection<GoneDoc>('gone_submissions');
  return {
    async markGone({ submissionId, orgId, goneAt }) {
      await insertOnce(gone.insertOne({ _id: submissionId, orgId, goneAt }));
    },
    async listGone(submissions) {
      if (submissions.length === 0) return new Set();
      // By `_id`; the organization is checked on the documents found.
      const ids = submissions.map((x) => x.submissionId);
      const docs = await findByIds(gone, ids, { projection: { orgId: 1 } });
      const orgOf = new Map(docs.map((d) => [d._id, d.orgId]));
      return new Set(submissions.filter((x) => orgOf.get(x.submissionId) === x.orgId).map((x) => x.submissionId));
    },
    async purgeOrganization(scope) {
      await gone.deleteMany({ orgId: scope.orgId }); // index `org` (an equality)
    },
  };
}
