import { expect } from 'vitest';
import type { LedgerReport } from './types.ts';

const first = (list: string[], n = 20) => `${list.slice(0, n).join(', ')}${list.length > n ? ', …' : ''}`;

/** The report as one line on stderr, so the figures of every scenario appear in CI output. */
export function printReport(r: LedgerReport, extra: Record<string, unknown> = {}): void {
  const fields = {
    sent: r.sent,
    acked: r.acked,
    unknown: r.unknown,
    unsent: r.unsent,
    stored: r.stored,
    storedUnknown: r.storedUnknown,
    missing: r.missing.length,
    dup: r.duplicates.length,
    phantom: r.phantoms.length,
    keyViolations: r.keyViolations.length,
    dlqAcked: r.dlqAcked.length,
    dlqForForm: r.dlqForForm,
    recoveryS: r.recoverySeconds,
    settled: r.settled,
    loadS: r.loadSeconds,
    checkS: r.checkSeconds,
    statuses: JSON.stringify(r.statusCounts),
    ...extra,
  };
  const line = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  process.stderr.write(`[reliability] ${r.scenario}: ${line}\n`);
}

/** Every broken invariant of the report, each as a sentence naming the ids involved. */
export function violations(r: LedgerReport, maxRecoverySeconds: number): string[] {
  const out: string[] = [];
  if (r.missing.length) out.push(`I1: ${r.missing.length} acked ids not in the read model: ${first(r.missing)}`);
  if (r.duplicates.length) out.push(`I1: ${r.duplicates.length} ids listed more than once: ${first(r.duplicates)}`);
  if (r.phantoms.length) out.push(`I4: ${r.phantoms.length} stored submissions never sent: ${first(r.phantoms)}`);
  if (r.keyViolations.length) {
    out.push(`I4: ${r.keyViolations.length} Idempotency-Keys stored wrongly: ${first(r.keyViolations)}`);
  }
  if (r.dlqAcked.length) {
    const entries = r.dlqAcked.map((d) => `${d.submissionId} by ${d.group} (${d.error})`);
    out.push(`DLQ: ${r.dlqAcked.length} acked ids dead-lettered in ingest.submission.dlq: ${first(entries, 5)}`);
  }
  if (r.recoverySeconds === null) out.push(`I5: acked ids still missing when quiescing ended (${r.settled})`);
  else if (r.recoverySeconds > maxRecoverySeconds) {
    out.push(`I5: all acked ids listed only after ${r.recoverySeconds} s (> ${maxRecoverySeconds} s)`);
  }
  return out;
}

/** Asserts I1, I4, I5 and the DLQ check in one expectation, so a failure lists every broken invariant at once. */
export function expectLedgerHolds(r: LedgerReport, maxRecoverySeconds: number): void {
  expect(violations(r, maxRecoverySeconds), `${r.scenario}: statuses ${JSON.stringify(r.statusCounts)}`).toEqual([]);
}

/** Asserts that a retrying client got every submission acked (none left unknown or unsent). */
export function expectAllAcked(r: LedgerReport): void {
  expect(
    { unknown: r.unknown, unsent: r.unsent },
    `${r.scenario}: not every submission was acked within the client's retries; statuses ${JSON.stringify(r.statusCounts)}`,
  ).toEqual({ unknown: 0, unsent: 0 });
}
