/** One submission the generator sent (or meant to send), and what the server answered to it. */
export interface LedgerEntry {
  /** The `Idempotency-Key`, also sent as the field `ledger` so a stored submission names its request. */
  key: string;
  /** acked = a 2xx with a submission id; unknown = no 2xx after every attempt; unsent = never sent (time ran out). */
  outcome: 'acked' | 'unknown' | 'unsent';
  /** The submission id of the 2xx answer (acked only). */
  id?: string;
  /** One label per attempt: the status code, or `ECONNREFUSED`, `TIMEOUT`, … */
  attempts: string[];
}

export interface LedgerResult {
  entries: LedgerEntry[];
  startedAt: number;
  endedAt: number;
}

/** A record of `ingest.submission.dlq` that belongs to the form under test. */
export interface DlqEntry {
  submissionId: string;
  group: string;
  error: string;
  offset: string;
}

/** A stored submission as the read model lists it, with the ledger key it carries (`undefined` if none). */
export interface StoredSubmission {
  id: string;
  key: string | undefined;
}

/** What the checker found; tests assert on it and it is printed as one line. */
export interface LedgerReport {
  scenario: string;
  sent: number;
  acked: number;
  unknown: number;
  unsent: number;
  /** Submissions of the form in the read model, and how many of them came from `unknown` requests. */
  stored: number;
  storedUnknown: number;
  /** I1: acked ids not in the read model / in it more than once. */
  missing: string[];
  duplicates: string[];
  /** I4: stored submissions the generator never sent (no key, a foreign key, an unsent key). */
  phantoms: string[];
  /** A key stored more than once, or an acked key stored under an id other than the acked one. */
  keyViolations: string[];
  /** Acked ids found in `ingest.submission.dlq` (distributed mode), and every DLQ record of the form. */
  dlqAcked: DlqEntry[];
  dlqForForm: number;
  /** I5: seconds from the later of the last fault's end and the load's end until every acked id was listed. */
  recoverySeconds: number | null;
  /** How the quiescing ended: all acked present and stable, missing ones all dead-lettered, or the deadline. */
  settled: 'complete' | 'dead-lettered' | 'deadline';
  /** Labels of every attempt (`200`, `503`, `ECONNREFUSED`, …) and their counts. */
  statusCounts: Record<string, number>;
  loadSeconds: number;
  /** How long quiescing and checking took (the DLQ read included). */
  checkSeconds: number;
}
