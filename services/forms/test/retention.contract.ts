import { randomUUID } from 'node:crypto';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { form, org, submission } from './forms-fixtures.ts';

/** The guarantees of `RetentionStore` (see its JSDoc). */
export function retentionContract(it: ContractIt, stores: () => FormsStores) {
  const setUp = async () => {
    const scope = org();
    const f = form(scope.orgId);
    await stores().forms.insertForm(f);
    return { scope, f };
  };
  const change = () => ({ id: randomUUID(), occurredAt: '2026-04-01T00:00:00.000Z', expired: true as const });

  it("keeps an organization's default, never another's, and forgets it with the organization", async () => {
    const { scope } = await setUp();
    const other = org();
    expect(await stores().retention.getOrgDays(scope)).toBeNull();
    await stores().retention.setOrgDays(scope, 30);
    await stores().retention.setOrgDays(other, 7);
    expect(await stores().retention.getOrgDays(scope)).toBe(30);
    await stores().retention.setOrgDays(scope, 90);
    expect(await stores().retention.getOrgDays(scope)).toBe(90);
    await stores().retention.setOrgDays(scope, null);
    expect(await stores().retention.getOrgDays(scope)).toBeNull();
    await stores().retention.setOrgDays(scope, 14);
    await stores().forms.purgeOrganization(scope);
    expect(await stores().retention.getOrgDays(scope)).toBeNull();
    expect(await stores().retention.getOrgDays(other)).toBe(7);
  });

  it('walks every form of every organization by id, each once across pages', async () => {
    const mine = await Promise.all([setUp(), setUp(), setUp(), setUp(), setUp()]);
    const seen: string[] = [];
    for (let after = ''; ; ) {
      const page = await stores().retention.listForms(after, 2);
      seen.push(...page.map((f) => f.id));
      if (page.length < 2) break;
      after = page[page.length - 1]?.id ?? '';
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort()).toEqual(seen);
    for (const { f } of mine) expect(seen).toContain(f.id);
    const walked = await stores().retention.listForms('', 10_000);
    expect(walked.find((f) => f.id === mine[0]?.f.id)).toEqual(mine[0]?.f);
  });

  it("answers a form's live and held submissions received before the time, oldest first, never deleted ones or another's", async () => {
    const { scope, f } = await setUp();
    const other = await setUp();
    const old = submission(f, '2026-01-02T00:00:00.000Z');
    const older = submission(f, '2026-01-01T00:00:00.000Z', { held: true });
    const deleted = submission(f, '2026-01-01T12:00:00.000Z');
    const recent = submission(f, '2026-03-01T00:00:00.000Z');
    const elsewhere = submission(other.f, '2026-01-01T00:00:00.000Z');
    await stores().submissions.insertSubmissions([old, recent, older, deleted]);
    await stores().submissions.insertSubmissions([elsewhere]);
    expect(await stores().changes.changeSubmission(scope, f.id, deleted.id, 'delete', change())).toBe('changed');

    const before = '2026-02-01T00:00:00.000Z';
    expect(await stores().retention.listExpired(scope, f.id, before, 10)).toEqual([
      { id: older.id, formId: f.id, createdAt: older.createdAt },
      { id: old.id, formId: f.id, createdAt: old.createdAt },
    ]);
    expect((await stores().retention.listExpired(scope, f.id, before, 1)).map((s) => s.id)).toEqual([older.id]);
    // Another organization's scope finds nothing of the form.
    expect(await stores().retention.listExpired(other.scope, f.id, before, 10)).toEqual([]);
    expect(await stores().retention.oldestAt(scope, f.id)).toBe(older.createdAt);

    // Erased, it is answered no more: the next read finds the rest.
    expect(await stores().changes.changeSubmission(scope, f.id, older.id, 'erase', change())).toBe('changed');
    expect((await stores().retention.listExpired(scope, f.id, before, 10)).map((s) => s.id)).toEqual([old.id]);
    expect(await stores().retention.oldestAt(scope, f.id)).toBe(old.createdAt);
    expect(await stores().changes.changeSubmission(scope, f.id, old.id, 'erase', change())).toBe('changed');
    expect(await stores().retention.listExpired(scope, f.id, before, 10)).toEqual([]);
    expect(await stores().retention.oldestAt(scope, f.id)).toBe(recent.createdAt);
    expect(await stores().retention.oldestAt(scope, randomUUID())).toBeNull();
  });

  it('an expired change is an erasure marked expired: held counts move like an erasure, the event says expired', async () => {
    const { scope, f } = await setUp();
    const held = submission(f, '2026-01-01T00:00:00.000Z', {
      held: true,
      fields: [{ name: 'message', value: 'secret words' }],
    });
    await stores().submissions.insertSubmissions([held]);
    const meta = change();
    expect(await stores().changes.changeSubmission(scope, f.id, held.id, 'erase', meta)).toBe('changed');
    const pending = (await stores().changes.listUnpublishedSubmissionChanges(100_000)).find((c) => c.id === meta.id);
    expect(pending).toMatchObject({ action: 'erase', expired: true, wasHeld: true, submissionId: held.id });
    expect(pending?.erasure).toBeUndefined();
    expect(await stores().submissions.getSubmission(scope, f.id, held.id)).toBeNull();
  });
}
