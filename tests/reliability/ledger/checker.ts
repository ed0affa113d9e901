import type { ReadModel } from './read-model.ts';
import type { DlqEntry, LedgerReport, LedgerResult, StoredSubmission } from './types.ts';

export interface CheckOptions {
  scenario: string;
  ledger: LedgerResult;
  readModel: ReadModel;
  formId: string;
  /** When the last fault ended (the restarted process or server answered again); `0` for none. */
  faultsEndedAt: number;
  /** T of I5: how long after the later of the last fault's end and the load's end every acked id must be listed. */
  recoveryDeadlineMs: number;
  /** Reads this form's records of `ingest.submission.dlq` (distributed mode). */
  readDlq?: () => Promise<DlqEntry[]>;
  /** Overrides of the quiescing intervals (the checker's own tests shorten them). */
  timing?: Partial<typeof TIMING>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TIMING = {
  /** All acked listed and nothing changed this long: nothing more (e.g. an unknown request) is on its way. */
  settleMs: 2_000,
  /** Nothing changed this long with acked ids missing: look whether they are all dead-lettered (terminal). */
  stallMs: 5_000,
  /** A full listing at least this often, whatever the counter says (it is a trigger, never the truth). */
  listEveryMs: 15_000,
  pollMs: 500,
};

/**
 * Quiesces (polls the read model until every acked id is listed and the count is stable, until the missing ones are
 * all dead-lettered, or until the deadline), then checks I1 (every acked id stored exactly once), I4 (nothing stored
 * that was not sent; an unknown request stored at most once), I5 (recovery time) and that no acked id is in the DLQ.
 */
export async function checkLedger(opts: CheckOptions): Promise<LedgerReport> {
  const checkStartedAt = Date.now();
  const { settleMs, stallMs, listEveryMs, pollMs } = { ...TIMING, ...opts.timing };
  const acked = opts.ledger.entries.filter((e) => e.outcome === 'acked');
  const ackedIds = new Set(acked.map((e) => e.id as string));
  const reference = Math.max(opts.faultsEndedAt, opts.ledger.endedAt);
  const deadline = reference + opts.recoveryDeadlineMs;
  const missingIn = (stored: StoredSubmission[]) => {
    const ids = new Set(stored.map((s) => s.id));
    return [...ackedIds].filter((id) => !ids.has(id));
  };

  let stored: StoredSubmission[] = [];
  let [listStartedAt, listedAt] = [0, 0];
  let countAtListing = -1;
  let allPresentAt: number | undefined;
  let settled: LedgerReport['settled'] = 'deadline';
  let [lastCount, lastListed, progressAt] = [-1, -1, Date.now()];
  let dlq: DlqEntry[] | undefined;
  let dlqReadAt = 0;
  while (Date.now() < deadline) {
    const polledAt = Date.now();
    const count = await opts.readModel.count(opts.formId).catch(() => lastCount);
    if (count !== lastCount) [lastCount, progressAt] = [count, polledAt];
    // A listing is expensive: list when the counter says enough are there and changed since, or every few seconds.
    const stale = count !== countAtListing && count >= ackedIds.size;
    if (stale || polledAt - listedAt >= listEveryMs) {
      listStartedAt = Date.now();
      [stored, countAtListing] = [await opts.readModel.listAll(opts.formId), count];
      listedAt = Date.now();
      if (stored.length !== lastListed) [lastListed, progressAt] = [stored.length, polledAt];
    }
    if (listedAt > 0 && missingIn(stored).length === 0) {
      // The counter already counted them when this listing began (resolution: one listing).
      allPresentAt ??= listStartedAt;
      // Settled: nothing changed for a while, and the listing has what the counter counts (else list again).
      if (polledAt - progressAt >= settleMs && (stored.length === count || listedAt - progressAt >= settleMs)) {
        settled = 'complete';
        break;
      }
    }
    if (allPresentAt === undefined && opts.readDlq && polledAt - Math.max(progressAt, dlqReadAt) >= stallMs) {
      dlqReadAt = polledAt;
      dlq = await opts.readDlq().catch(() => []);
      const dead = new Set(dlq.map((d) => d.submissionId));
      if (missingIn(stored).every((id) => dead.has(id))) {
        settled = 'dead-lettered';
        break;
      }
    }
    await sleep(pollMs);
  }
  if (settled === 'deadline') {
    const finalListingAt = Date.now();
    stored = await opts.readModel.listAll(opts.formId);
    if (missingIn(stored).length === 0) allPresentAt ??= finalListingAt;
  }
  if (opts.readDlq && settled !== 'dead-lettered') dlq = await opts.readDlq();
  const recoverySeconds = allPresentAt === undefined ? null : (allPresentAt - reference) / 1000;
  const checkSeconds = (Date.now() - checkStartedAt) / 1000;
  return { ...report(opts, stored, dlq ?? [], recoverySeconds, settled), checkSeconds };
}

function report(
  opts: CheckOptions,
  stored: StoredSubmission[],
  dlq: DlqEntry[],
  recoverySeconds: number | null,
  settled: LedgerReport['settled'],
): Omit<LedgerReport, 'checkSeconds'> {
  const { entries } = opts.ledger;
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const idCount = new Map<string, number>();
  const keyIds = new Map<string, string[]>();
  const phantoms: string[] = [];
  for (const s of stored) {
    idCount.set(s.id, (idCount.get(s.id) ?? 0) + 1);
    const entry = s.key === undefined ? undefined : byKey.get(s.key);
    if (!entry || entry.outcome === 'unsent') phantoms.push(`${s.id} (key ${s.key ?? 'none'})`);
    else keyIds.set(entry.key, [...(keyIds.get(entry.key) ?? []), s.id]);
  }
  const keyViolations: string[] = [];
  for (const [key, ids] of keyIds) {
    const entry = byKey.get(key);
    if (ids.length > 1) keyViolations.push(`${key} stored ${ids.length}× as ${ids.join(',')}`);
    else if (entry?.outcome === 'acked' && ids[0] !== entry.id) {
      keyViolations.push(`${key} acked as ${entry.id}, stored as ${ids[0]}`);
    }
  }
  const acked = entries.filter((e) => e.outcome === 'acked');
  const ackedIds = new Set(acked.map((e) => e.id as string));
  const statusCounts: Record<string, number> = {};
  for (const e of entries) for (const a of e.attempts) statusCounts[a] = (statusCounts[a] ?? 0) + 1;
  return {
    scenario: opts.scenario,
    sent: entries.filter((e) => e.outcome !== 'unsent').length,
    acked: acked.length,
    unknown: entries.filter((e) => e.outcome === 'unknown').length,
    unsent: entries.filter((e) => e.outcome === 'unsent').length,
    stored: stored.length,
    storedUnknown: stored.filter((s) => s.key !== undefined && byKey.get(s.key)?.outcome === 'unknown').length,
    missing: [...ackedIds].filter((id) => !idCount.has(id)),
    duplicates: [...idCount].filter(([, n]) => n > 1).map(([id, n]) => `${id} ×${n}`),
    phantoms,
    keyViolations,
    dlqAcked: dlq.filter((d) => ackedIds.has(d.submissionId)),
    dlqForForm: dlq.length,
    recoverySeconds,
    settled,
    statusCounts,
    loadSeconds: (opts.ledger.endedAt - opts.ledger.startedAt) / 1000,
  };
}
