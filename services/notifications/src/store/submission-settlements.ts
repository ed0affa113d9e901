import type { DeliveryChannel } from '@formgate/contracts';
import type { SubmissionSettlement } from './records.ts';

/** A submission of a no-store form whose planning a consumer group recorded. */
export interface PlannedSubmission {
  submissionId: string;
  orgId: string;
  formId: string;
}

/**
 * The settlement records of no-store forms' submissions (issue 31): the outbox of `submission.settled`, written
 * with the planning, closed once the event was published and the content dropped. Guarantees (checked by
 * `submission-settlements.contract.ts`):
 *
 * - `recordPlanning(submissions, kinds, at)` records that `kinds` planned each submission: a record is open from its
 *   first planning, first due for the sweep at `checkAt`; a kind recorded again changes nothing. Kinds recorded at
 *   the same moment by several callers (the two consumer groups) all count: each (submission, kind) is its own
 *   unique insert, never a read-then-write.
 * - `get(submissionId)` answers the record with every kind recorded (null: none), open while any kind's is: its
 *   `settledAt` is set only once `markSettled` closed all of them. By key.
 * - `listDue(now, limit)` lists open records whose `checkAt ≤ now`, earliest first, at most `limit` (fewer when a
 *   record's kinds are due together); never a settled one. The sweep's read across organizations, index-backed.
 * - `postpone(submissionId, checkAt)` moves an open record's `checkAt`; a settled one stays as it is.
 * - `markSettled(submissionId, settledAt)` closes the record for good: never listed again, `settledAt` kept.
 *   Idempotent.
 */
export interface SubmissionSettlements {
  recordPlanning(
    submissions: PlannedSubmission[],
    kinds: readonly DeliveryChannel[],
    at: { now: string; checkAt: string },
  ): Promise<void>;
  get(submissionId: string): Promise<SubmissionSettlement | null>;
  listDue(now: string, limit: number): Promise<SubmissionSettlement[]>;
  postpone(submissionId: string, checkAt: string): Promise<void>;
  markSettled(submissionId: string, settledAt: string): Promise<void>;
}

/** One kind's record of a submission, as the adapters keep it. */
export interface SettlementKindRecord {
  submissionId: string;
  kind: DeliveryChannel;
  orgId: string;
  formId: string;
  createdAt: string;
  checkAt: string | null;
  settledAt: string | null;
}

/** A submission's record from its kinds' (at least one): open while any is, settled when all are. */
export function mergeKinds(rows: SettlementKindRecord[]): SubmissionSettlement | null {
  const [first] = rows;
  if (!first) return null;
  const open = rows.filter((r) => r.settledAt === null);
  // ISO times, compared as strings.
  const min = (values: string[]) => [...values].sort()[0] as string;
  const max = (values: string[]) => [...values].sort().at(-1) as string;
  return {
    submissionId: first.submissionId,
    orgId: first.orgId,
    formId: first.formId,
    planned: [...new Set(rows.map((r) => r.kind))].sort(),
    createdAt: min(rows.map((r) => r.createdAt)),
    checkAt: open.length > 0 ? min(open.map((r) => r.checkAt ?? r.createdAt)) : null,
    settledAt: open.length > 0 ? null : max(rows.map((r) => r.settledAt as string)),
  };
}
