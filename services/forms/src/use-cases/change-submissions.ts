import type { OrgScope, SubmissionAction, SubmissionChangeResult } from '@formgate/contracts';
import type { Clock, Ids } from '@formgate/kit';
import type { SubmissionChanges } from '../store/submission-changes.ts';

export interface SubmissionChangeDeps {
  changes: SubmissionChanges;
  clock: Clock;
  ids: Ids;
  /** Called after changes were stored, so the outbox relay publishes them promptly. */
  onSubmissionChanged: () => void;
}

/**
 * Applies one action to each submission named, in order, each change durable with its event before the next;
 * answers what happened to each. The form must have been checked to be the caller's.
 */
export async function changeSubmissions(
  deps: SubmissionChangeDeps,
  scope: OrgScope,
  formId: string,
  action: SubmissionAction,
  submissionIds: readonly string[],
): Promise<{ id: string; result: SubmissionChangeResult }[]> {
  const results: { id: string; result: SubmissionChangeResult }[] = [];
  try {
    for (const id of submissionIds) {
      const change = { id: deps.ids.next(), occurredAt: deps.clock.now().toISOString() };
      results.push({ id, result: await deps.changes.changeSubmission(scope, formId, id, action, change) });
    }
  } finally {
    if (results.some((r) => r.result === 'changed')) deps.onSubmissionChanged();
  }
  return results;
}
