import { randomUUID } from 'node:crypto';
import { type BlockedCount, DEFAULT_FORM_SETTINGS, type Form, type OrgScope } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStore } from '../src/store/forms-store.ts';

const org = (): OrgScope => ({ orgId: `org_${randomUUID()}` });

function form(orgId: string): Form {
  const id = randomUUID();
  const now = new Date().toISOString();
  return {
    id,
    orgId,
    name: 'Contact',
    slug: `contact-${id.slice(0, 8)}`,
    key: id.replaceAll('-', '').slice(0, 16),
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: now,
    updatedAt: now,
    version: 1,
  };
}

const blocked = (f: Form, minute: string, count: number, layer: BlockedCount['layer'] = 'origin'): BlockedCount => ({
  formId: f.id,
  orgId: f.orgId,
  layer,
  rule: layer === 'rate-limit' ? 'per-ip' : 'origin-not-allowed',
  minute,
  count,
});

/** The guarantees of `BlockedCountMethods` (blocked-counts.ts), part of the `FormsStore` contract. */
export function blockedCountsContract(it: ContractIt, store: () => FormsStore) {
  const setUp = async () => {
    const scope = org();
    const [f, g] = [form(scope.orgId), form(scope.orgId)];
    await store().insertForm(f);
    await store().insertForm(g);
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
    await store().recordBlocked('report-1', one);
    await store().recordBlocked('report-1', one);
    await store().recordBlocked('report-2', [blocked(f, '2026-05-02T10:00:00.000Z', 5)]);
    await store().recordBlocked('report-2', [blocked(f, '2026-05-02T10:00:00.000Z', 5)]);
    await store().recordBlocked('report-3', []);
    expect(await store().getBlockedDays(scope, f.id, '2026-05-01', '2026-05-31')).toEqual([
      { day: '2026-05-01', blocked: 5 },
      { day: '2026-05-02', blocked: 9 },
    ]);
    expect(await store().getBlockedDays(scope, f.id, '2026-05-02', '2026-05-02')).toEqual([
      { day: '2026-05-02', blocked: 9 },
    ]);
    const totals = await store().getBlockedTotals(scope, [f.id, g.id, 'no-such-form'], '2026-05-01', '2026-05-31');
    expect(totals).toEqual(
      new Map([
        [f.id, 14],
        [g.id, 1],
      ]),
    );
    expect(await store().getBlockedTotals(scope, [f.id], '2026-05-02', '2026-05-30')).toEqual(new Map([[f.id, 9]]));
    expect(await store().getBlockedTotals(scope, [f.id], '2026-06-01', '2026-06-30')).toEqual(new Map());
  });

  it('never shows an organization another one’s counts', async () => {
    const { scope, f } = await setUp();
    await store().recordBlocked(`r-${randomUUID()}`, [blocked(f, '2026-05-03T08:00:00.000Z', 7)]);
    const other = org();
    expect(await store().getBlockedDays(other, f.id, '2026-05-01', '2026-05-31')).toEqual([]);
    expect(await store().getBlockedTotals(other, [f.id], '2026-05-01', '2026-05-31')).toEqual(new Map());
    expect(await store().getBlockedTotals(scope, [f.id], '2026-05-01', '2026-05-31')).toEqual(new Map([[f.id, 7]]));
  });

  it('forgets a form’s counts when the form is purged, and an organization’s with it', async () => {
    const { scope, f, g } = await setUp();
    await store().recordBlocked(`r-${randomUUID()}`, [
      blocked(f, '2026-05-04T08:00:00.000Z', 2),
      blocked(g, '2026-05-04T08:00:00.000Z', 3),
    ]);
    expect(await store().deleteForm(scope, f.id)).toBe(true);
    await store().purgeDeletedForm(f.id);
    expect(await store().getBlockedDays(scope, f.id, '2026-05-01', '2026-05-31')).toEqual([]);
    await store().purgeOrganization(scope);
    for (const d of await store().listUnpublishedDeletions(100_000)) {
      if (d.orgId === scope.orgId) await store().purgeDeletedForm(d.formId);
    }
    expect(await store().getBlockedTotals(scope, [g.id], '2026-05-01', '2026-05-31')).toEqual(new Map());
  });
}
