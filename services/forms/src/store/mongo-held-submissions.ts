import { isDuplicateKeyError, type MongoConnection } from '@formgate/store/mongo';
import type { HeldSubmissionMethods, ReleaseLedger } from './held-submissions.ts';
import {
  COUNTERS,
  type CounterDoc,
  PROJECTION,
  SUBMISSIONS,
  type SubmissionDoc,
  toStored,
} from './mongo-submissions.ts';

type MongoDb = NonNullable<MongoConnection['db']>;

export const RELEASE_LEDGERS = 'release_ledgers';
/** Per form: releases counted so far (`mongo-submission-changes.ts`). */
const CHANGE_COUNTERS = 'form_change_counters';

/** The index `listOldestHeld` reads (MongoDB uses it; FerretDB 1.24 scans, see ADR 35). */
export async function createHeldSubmissionIndexes(db: MongoDb): Promise<void> {
  await db.collection(SUBMISSIONS).createIndex({ orgId: 1, held: 1, createdAt: 1, _id: 1 }, { name: 'org_held' });
}

/**
 * Held submissions on MongoDB 7+ / FerretDB 1.24: the organization's oldest live held ones by (`orgId`, `held`,
 * `createdAt`, `_id`); their count from the forms' counters (stored held, less the releases counted); the ledger as
 * one document per organization (`_id` = orgId), replaced whole by its one writer.
 */
export function createMongoHeldSubmissions(db: MongoDb): HeldSubmissionMethods {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);
  const changeCounters = db.collection<{ _id: string; orgId: string; held?: number }>(CHANGE_COUNTERS);
  const ledgers = db.collection<Omit<ReleaseLedger, 'orgId'> & { _id: string }>(RELEASE_LEDGERS);
  return {
    async listOldestHeld(scope, limit) {
      if (limit <= 0) return [];
      const docs = await submissions
        .find({ orgId: scope.orgId, held: true, deleted: { $ne: true } }, { projection: PROJECTION })
        .sort({ createdAt: 1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStored);
    },
    async countHeld(scope) {
      const [stored, released] = await Promise.all([
        counters.find({ orgId: scope.orgId }, { projection: { held: 1 } }).toArray(),
        changeCounters.find({ orgId: scope.orgId }, { projection: { held: 1 } }).toArray(),
      ]);
      return [...stored, ...released].reduce((n, d) => n + (d.held ?? 0), 0);
    },
    async getReleaseLedger(scope) {
      const doc = await ledgers.findOne({ _id: scope.orgId });
      if (!doc) return null;
      const { _id, ...rest } = doc;
      return { orgId: _id, ...rest };
    },
    async saveReleaseLedger({ orgId, ...rest }) {
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
