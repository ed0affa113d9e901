import type { DeliveryChannel } from '@formgate/contracts';
import { ignoreDuplicates, type MongoDb } from '@formgate/store/mongo';
import { mergeKinds, type SettlementKindRecord, type SubmissionSettlements } from '../submission-settlements.ts';

/**
 * One kind's record: `_id` `<submissionId>#<kind>`. `open` and `checkAt` are set exactly while it is open (index
 * `open_check`, sparse: only open records are in it).
 */
interface SettlementDoc {
  _id: string;
  submissionId: string;
  kind: DeliveryChannel;
  orgId: string;
  formId: string;
  createdAt: string;
  open?: true;
  checkAt?: string;
  settledAt?: string;
}

/** Open while flagged: a postponement that raced a settlement and wrote the flag back only settles it again. */
const toKind = ({ _id: _k, open, checkAt, settledAt, ...rest }: SettlementDoc): SettlementKindRecord => ({
  ...rest,
  checkAt: open ? (checkAt ?? rest.createdAt) : null,
  settledAt: open ? null : (settledAt ?? rest.createdAt),
});

/**
 * `SubmissionSettlements` on MongoDB 7+ or FerretDB 1.24: each (submission, kind) is a unique insert, since FerretDB
 * runs an update as a read then a write (two kinds added to one document at once could lose one). A crash between
 * the updates of a submission's kinds leaves it open, so the sweep settles it again.
 */
export function createMongoSubmissionSettlements(db: MongoDb): SubmissionSettlements {
  const settlements = db.collection<SettlementDoc>('submission_settlements');
  // Index `submission`.
  const get = async (submissionId: string) =>
    mergeKinds((await settlements.find({ submissionId }).toArray()).map(toKind));
  return {
    async recordPlanning(submissions, kinds, at) {
      const docs = submissions.flatMap((sub) =>
        kinds.map((kind) => ({
          _id: `${sub.submissionId}#${kind}`,
          ...sub,
          kind,
          createdAt: at.now,
          open: true as const,
          checkAt: at.checkAt,
        })),
      );
      if (docs.length > 0) await settlements.insertMany(docs, { ordered: false }).catch(ignoreDuplicates);
    },
    get,
    async listDue(now, limit) {
      // Index `open_check`.
      const docs = await settlements
        .find({ open: true, checkAt: { $lte: now } })
        .sort({ open: 1, checkAt: 1 })
        .limit(limit)
        .toArray();
      const found = await Promise.all([...new Set(docs.map((d) => d.submissionId))].map(get));
      return found.filter((r) => r !== null);
    },
    async postpone(submissionId, checkAt) {
      // Index `submission`.
      await settlements.updateMany({ submissionId, open: true }, { $set: { checkAt } });
    },
    async markSettled(submissionId, settledAt) {
      // Index `submission`.
      await settlements.updateMany(
        { submissionId, open: true },
        { $set: { settledAt }, $unset: { open: '', checkAt: '' } },
      );
    },
  };
}
