/**
 * How long an event about a submission this service has not stored yet is waited for: consumers of
 * `ingest.submission` and of the topics that follow it each read at their own pace, and a lagging one catches up
 * well within this. Past it, the submission is taken to be gone (deleted meanwhile) and the event skipped.
 */
export const STORED_WAIT_MS = 10 * 60_000;

/** A submission this service has not stored yet: the bus retries the batch (`retryable`), without limit. */
export class SubmissionNotYetStoredError extends Error {
  readonly retryable = true;
  constructor(submissionId: string) {
    super(`submission ${submissionId} is not stored by forms yet; retrying`);
    this.name = 'SubmissionNotYetStoredError';
  }
}

/** Whether an event about a submission not found, from `since` (ISO-8601), is still to be waited for. */
export function stillWaitingFor(since: string, now: Date): boolean {
  return now.getTime() - new Date(since).getTime() < STORED_WAIT_MS;
}
