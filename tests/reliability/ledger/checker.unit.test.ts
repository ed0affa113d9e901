import { describe, expect, it } from 'vitest';
import { checkLedger } from './checker.ts';
import type { ReadModel } from './read-model.ts';
import { violations } from './report.ts';
import type { LedgerEntry, StoredSubmission } from './types.ts';

const entry = (key: string, outcome: LedgerEntry['outcome'], id?: string): LedgerEntry => ({
  key,
  outcome,
  ...(id ? { id } : {}),
  attempts: outcome === 'unsent' ? [] : outcome === 'acked' ? ['503', '200'] : ['503', 'TIMEOUT'],
});
const fakeReadModel = (stored: StoredSubmission[]): ReadModel => ({
  count: async () => stored.length,
  listAll: async () => [...stored],
});
const timing = { settleMs: 200, stallMs: 500, pollMs: 20 };
const ledger = (entries: LedgerEntry[]) => ({ entries, startedAt: Date.now() - 1_000, endedAt: Date.now() });

describe('the ledger checker', () => {
  it('passes a complete read model, with an unknown request stored once, and measures recovery', async () => {
    const entries = [entry('k1', 'acked', 'A'), entry('k2', 'acked', 'B'), entry('k3', 'unknown')];
    const report = await checkLedger({
      scenario: 'clean',
      ledger: ledger(entries),
      readModel: fakeReadModel([
        { id: 'A', key: 'k1' },
        { id: 'B', key: 'k2' },
        { id: 'C', key: 'k3' },
      ]),
      formId: 'f',
      timing,
      faultsEndedAt: 0,
      recoveryDeadlineMs: 10_000,
    });
    expect(report).toMatchObject({ acked: 2, unknown: 1, stored: 3, storedUnknown: 1, settled: 'complete' });
    expect(report.recoverySeconds).toBeLessThan(1);
    expect(report.statusCounts).toEqual({ 200: 2, 503: 3, TIMEOUT: 1 });
    expect(violations(report, 60)).toEqual([]);
  });

  it('names every lost, doubled, phantom, mis-keyed and dead-lettered submission', async () => {
    const entries = [
      entry('k1', 'acked', 'A'),
      entry('k2', 'acked', 'B'),
      entry('k3', 'acked', 'C'),
      entry('k4', 'unknown'),
      entry('k5', 'unsent'),
    ];
    const report = await checkLedger({
      scenario: 'broken',
      ledger: ledger(entries),
      readModel: fakeReadModel([
        { id: 'A', key: 'k1' },
        { id: 'A', key: 'k1' },
        { id: 'B2', key: 'k2' },
        { id: 'D1', key: 'k4' },
        { id: 'D2', key: 'k4' },
        { id: 'E', key: 'k5' },
        { id: 'F', key: undefined },
      ]),
      formId: 'f',
      timing,
      faultsEndedAt: 0,
      recoveryDeadlineMs: 300,
      readDlq: async () => [{ submissionId: 'C', group: 'forms.submission-received', error: 'down', offset: '7' }],
    });
    expect(report.missing).toEqual(['B', 'C']);
    expect(report.duplicates).toEqual(['A ×2']);
    expect(report.phantoms).toEqual(['E (key k5)', 'F (key none)']);
    expect(report.keyViolations).toEqual([
      'k1 stored 2× as A,A',
      'k2 acked as B, stored as B2',
      'k4 stored 2× as D1,D2',
    ]);
    expect(report.dlqAcked.map((d) => d.submissionId)).toEqual(['C']);
    expect(report).toMatchObject({ recoverySeconds: null, settled: 'deadline', unsent: 1, sent: 4 });
    const found = violations(report, 60);
    expect(found.map((v) => v.slice(0, v.indexOf(':')))).toEqual(['I1', 'I1', 'I4', 'I4', 'DLQ', 'I5']);
    expect(found[0]).toContain('B, C');
    expect(found[4]).toContain('C by forms.submission-received (down)');
  });

  it('with nothing acked, an unknown request stored once is fine and recovery is measured from a listing', async () => {
    const report = await checkLedger({
      scenario: 'none-acked',
      ledger: ledger([entry('k1', 'unknown'), entry('k2', 'unknown')]),
      readModel: fakeReadModel([{ id: 'A', key: 'k2' }]),
      formId: 'f',
      timing,
      faultsEndedAt: 0,
      recoveryDeadlineMs: 5_000,
    });
    expect(report).toMatchObject({ acked: 0, unknown: 2, storedUnknown: 1, settled: 'complete' });
    expect(report.recoverySeconds).toBeGreaterThanOrEqual(0);
    expect(violations(report, 60)).toEqual([]);
  });

  it('stops waiting once every missing acked id is dead-lettered (nothing will bring it back)', async () => {
    const started = Date.now();
    const report = await checkLedger({
      scenario: 'dlq',
      ledger: ledger([entry('k1', 'acked', 'A'), entry('k2', 'acked', 'B')]),
      readModel: fakeReadModel([{ id: 'A', key: 'k1' }]),
      formId: 'f',
      timing,
      faultsEndedAt: 0,
      recoveryDeadlineMs: 60_000,
      readDlq: async () => [{ submissionId: 'B', group: 'g', error: 'e', offset: '0' }],
    });
    expect(report).toMatchObject({ settled: 'dead-lettered', missing: ['B'], recoverySeconds: null });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
