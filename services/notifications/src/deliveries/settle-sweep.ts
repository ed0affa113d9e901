import { type Clock, createRelayLoop, type Logger, mapLimit } from '@formgate/kit';
import type { SubmissionSettlements } from '../store/index.ts';
import type { SubmissionSettler } from './settle-submission.ts';
import { DELIVERY_TUNING } from './tuning.ts';

const T = DELIVERY_TUNING;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The settle sweep, the safety net of `settle-submission.ts`: every `settleSweepMs`, settles the open settlements
 * that are due (`listDue`: planned `settleGraceMs` ago or more, or looked at before and due again), and postpones
 * each one it cannot settle yet by as long as it is old (`settleGraceMs` to `settleRecheckMaxMs`). So a submission
 * whose settling a stopped process, a bus or a store failure left half-done is settled, its event published under
 * the same id, once its record is due. All its state is in the store: it resumes after a restart, and instances
 * sweeping at once settle a submission twice at worst.
 */
export function createSettleSweep(deps: {
  stores: { settlements: SubmissionSettlements };
  settler: SubmissionSettler;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}) {
  const { settlements } = deps.stores;
  return createRelayLoop({
    intervalMs: deps.intervalMs ?? T.settleSweepMs,
    onError: (err) => deps.logger.warn({ err }, 'settle sweep failed; next pass soon'),
    pass: async () => {
      const now = deps.clock.now().getTime();
      const due = await settlements.listDue(iso(now), T.settledPerPass);
      const done = await mapLimit(due, T.retriesAtOnce, async (record) => {
        try {
          if (await deps.settler.settle(record.submissionId)) return true;
          const age = now - Date.parse(record.createdAt);
          const wait = Math.min(T.settleRecheckMaxMs, Math.max(T.settleGraceMs, age));
          await settlements.postpone(record.submissionId, iso(now + wait));
          return true;
        } catch (err) {
          deps.logger.warn({ err, submissionId: record.submissionId }, 'settling a submission failed; retried later');
          return false;
        }
      });
      // Another pass at once only when this one took care of a full list.
      return due.length === T.settledPerPass && done.every(Boolean);
    },
  });
}
