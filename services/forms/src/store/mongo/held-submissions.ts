import { isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import type { HeldSubmissions } from '../held-submissions.ts';
import type { ReleaseLedger } from '../records.ts';
import {
  type ChangeCounterDoc,
  Collections,
  type CounterDoc,
  PROJECTION,
  type SubmissionDoc,
  toStored,
} from './schema.ts';

/**
 * `HeldSubmissions` on MongoDB 7+ / FerretDB 1.24: the organization's oldest live held ones by (`orgId`, `held`,
 * `createdAt`, `_id`); their count from the forms' counters (stored held, less the releases counted); the ledger as
 * one document per organization (`_id` = orgId), replaced whole by its one writer.
 */
export function createMongoHeldSubmissions(db: MongoDb): HeldSubmissions {
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  const counters = db.collection<CounterDoc>(Collections.counters);
  const changeCounters = db.collection<ChangeCounterDoc>(Collections.changeCounters);
  const ledgers = db.collection<Omit<ReleaseLedger, 'orgId'> & { _id: string }>(Collections.releaseLedgers);
  return {
    async listOldestHeld(scope, limit) {
      if (limit <= 0) return [];
      // Index `org_held` (orgId, held, createdAt, _id) on MongoDB; FerretDB 1.24 pushes down the equalities and
      // sorts in Go (ADR 35: held submissions are few).
      const docs = await submissions
        .find({ orgId: scope.orgId, held: true, deleted: { $ne: true } }, { projection: PROJECTION })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },
    async countHeld(scope) {
      // No index: the `orgId` equality over one document per form.
      const [stored, released] = await Promise.all([
        counters.find({ orgId: scope.orgId }, { projection: { held: 1 } }).toArray(),
        changeCounters.find({ orgId: scope.orgId }, { projection: { held: 1 } }).toArray(),
      ]);
      return [...stored, ...released].reduce((n, d) => n + (d.held ?? 0), 0);
    },
    async getReleaseLedger(scope) {
      const doc = await ledgers.findOne({ _id: scope.orgId }); // by `_id`
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return { orgId: _id, ...rest };
    },
    async saveReleaseLedger({ orgId, ...rest }) {
      // By `_id`.
      try {
        await ledgers.replaceOne({ _id: orgId }, rest, { upsert: true });
      } catch (err) {
        // Two upserts of a new ledger raced (a rebalance overlap): the document exists now, replace it.
        if (!isDuplicateKeyError(err)) throw err;
        await ledgers.replaceOne({ _id: orgId }, rest);
      }
    },
  };
}
