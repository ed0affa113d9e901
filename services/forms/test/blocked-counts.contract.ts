import { randomUUID } from 'node:crypto';
import type { BlockedCount, Form } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { form, org } from './forms-fixtures.ts';

const blocked = (f: Form, minute: string, count: number, layer: BlockedCount['layer'] = 'origin'): BlockedCount => ({
  formId: f.id,
  orgId: f.orgId,
  layer,
  rule: layer === 'rate-limit' ? 'per-ip' : 'origin-not-allowed',
  minute,
  count,
});

/** The guarantees of `BlockedCounts` (see its JSDoc). */
export function blockedCountsContract(it: ContractIt, stores: () => FormsStores) {
  const setUp = async () => {
    const scope = org();
    const [f, g] = [form(scope.orgId), form(scope.orgId)];
    await stores().forms.insertForm(f);
    await stores().forms.insertForm(g);
    return { scope, f, g };
  };

  it('counts blocked requests per form and UTC day, each report once however often it is redelivered', async () => {
    const { scope, f, g } = await setUp();
    const one = [
      blocked(f, '2026-05-01T23:59:00.000Z', 3),
      blocked(f, '2026-05-01T23:58:00.000Z', 2, 'rate-limit'),
      blocked(f, '2026-05-02T00:00:00.000Z', 4),
      blocked(g, '2026-05-02T00:01:00.000Z', 1),
    ];
    await stores().blocked.recordBlocked('report-1', one);
    await stores().blocked.recordBlocked('report-1', one);
    await stores().blocked.recordBlocked('report-2', [blocked(f, '2026-05-02T10:00:00.000Z', 5)]);
    await stores().blocked.recordBlocked('report-2', [blocked(f, '2026-05-02T10:00:00.000Z', 5)]);
    await stores().blocked.recordBlocked('report-3', []);
    expect(await stores().blocked.getBlockedDays(scope, f.id, '2026-05-01', '2026-05-31')).toEqual([
      { day: '2026-05-01', blocked: 5 },
      { day: '2026-05-02', blocked: 9 },
    ]);
    expect(await stores().blocked.getBlockedDays(scope, f.id, '2026-05-02', '2026-05-02')).toEqual([
      { day: '2026-05-02', blocked: 9 },
    ]);
    const totals = await stores().blocked.getBlockedTotals(
      scope,
      [f.id, g.id, 'no-such-form'],
      '2026-05-01',
      '2026-05-31',
    );
    expect(totals).toEqual(
      new Map([
        [f.id, 14],
        [g.id, 1],
      ]),
    );
    expect(await stores().blocked.getBlockedTotals(scope, [f.id], '2026-05-02', '2026-05-30')).toEqual(
      new Map([[f.id, 9]]),
    );
    expect(await stores().blocked.getBlockedTotals(scope, [f.id], '2026-06-01', '2026-06-30')).toEqual(new Map());
  });

  it('never shows an organization another one’s counts', async () => {
    const { scope, f } = await setUp();
    await stores().blocked.recordBlocked(`r-${randomUUID()}`, [blocked(f, '2026-05-03T08:00:00.000Z', 7)]);
    const other = org();
    expect(await stores().blocked.getBlockedDays(other, f.id, '2026-05-01', '2026-05-31')).toEqual([]);
    expect(await stores().blocked.getBlockedTotals(other, [f.id], '2026-05-01', '2026-05-31')).toEqual(new Map());
    expect(await stores().blocked.getBlockedTotals(scope, [f.id], '2026-05-01', '2026-05-31')).toEqual(
      new Map([[f.id, 7]]),
    );
  });

  it('forgets a form’s counts when the form is purged, and an organization’s with it', async () => {
    const { scope, f, g } = await setUp();
    await stores().blocked.recordBlocked(`r-${randomUUID()}`, [
      blocked(f, '2026-05-04T08:00:00.000Z', 2),
      blocked(g, '2026-05-04T08:00:00.000Z', 3),
    ]);
    expect(await stores().forms.deleteForm(scope, f.id)).toBe(f.version + 1);
    await stores().forms.purgeDeletedForm(f.id);
    expect(await stores().blocked.getBlockedDays(scope, f.id, '2026-05-01', '2026-05-31')).toEqual([]);
    await stores().forms.purgeOrganization(scope);
    for (const d of await stores().forms.listUnpublishedDeletions(100_000)) {
      if (d.orgId === scope.orgId) await stores().forms.purgeDeletedForm(d.formId);
    }
    expect(await stores().blocked.getBlockedTotals(scope, [g.id], '2026-05-01', '2026-05-31')).toEqual(new Map());
  });
}
