import { randomUUID } from 'node:crypto';
import type { SignedErasureReceipt } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { form, org, submission } from './forms-fixtures.ts';

const receiptOf = (orgId: string, id: string, erasedAt: string): SignedErasureReceipt => ({
  receipt: {
    type: 'erasure-receipt/1',
    id,
    orgId,
    requestedBy: { id: 'user-1', via: 'session' },
    addressKey: 'k',
    erasedAt,
    count: 1,
    forms: ['f'],
    submissions: [{ id: 's', formId: 'f', receivedAt: erasedAt }],
  },
  signature: { alg: 'Ed25519', keyId: 'key', value: 'sig' },
});

/** The guarantees of `Erasures` (see its JSDoc), and what `erase` in `SubmissionChanges` leaves of a submission. */
export function erasuresContract(it: ContractIt, stores: () => FormsStores) {
  const setUp = async () => {
    const scope = org();
    const f = form(scope.orgId);
    await stores().forms.insertForm(f);
    return { scope, f };
  };
  const change = (erasure = 'er-1') => ({ id: randomUUID(), occurredAt: '2026-04-01T00:00:00.000Z', erasure });

  it("finds the organization's live and held submissions by any of the keys, oldest first, never another's", async () => {
    const { scope, f } = await setUp();
    const other = org();
    const g = form(other.orgId);
    await stores().forms.insertForm(g);
    const a = submission(f, '2026-03-02T00:00:00.000Z', { addressKeys: ['ka', 'kb'] });
    const b = submission(f, '2026-03-01T00:00:00.000Z', { addressKeys: ['kb'], held: true });
    const c = submission(f, '2026-03-03T00:00:00.000Z', { addressKeys: ['kc'] });
    const elsewhere = submission(g, '2026-03-01T00:00:00.000Z', { addressKeys: ['kb'] });
    await stores().submissions.insertSubmissions([a, b, c]);
    await stores().submissions.insertSubmissions([elsewhere]);
    const found = await stores().erasures.findByAddressKeys(scope, ['kb', 'kx']);
    expect(found).toEqual([
      { id: b.id, formId: f.id, createdAt: b.createdAt },
      { id: a.id, formId: f.id, createdAt: a.createdAt },
    ]);
    expect((await stores().erasures.findByAddressKeys(scope, ['ka', 'kb'])).map((s) => s.id)).toEqual([b.id, a.id]);
    expect(await stores().erasures.findByAddressKeys(scope, [])).toEqual([]);
    expect((await stores().erasures.findByAddressKeys(other, ['kb'])).map((s) => s.id)).toEqual([elsewhere.id]);
  });

  it('an erased submission, held or not, keeps nothing the submitter sent and is found no more', async () => {
    const { scope, f } = await setUp();
    const live = submission(f, '2026-03-01T00:00:00.000Z', {
      addressKeys: ['kz'],
      fields: [{ name: 'email', value: 'zed@example.com' }],
      files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 3, blobKey: 'blob-z' }],
      origin: 'https://zed.example',
    });
    const held = submission(f, '2026-03-02T00:00:00.000Z', {
      addressKeys: ['kz'],
      held: true,
      meta: { replyTo: 'zed@example.com' },
    });
    await stores().submissions.insertSubmissions([live, held]);
    for (const s of [live, held]) {
      expect(await stores().changes.changeSubmission(scope, f.id, s.id, 'erase', change())).toBe('changed');
    }
    expect(await stores().erasures.findByAddressKeys(scope, ['kz'])).toEqual([]);
    expect(await stores().submissions.getSubmission(scope, f.id, live.id)).toBeNull();
    expect(await stores().submissions.findSubmissions(scope, f.id, { filter: { terms: ['zed'] }, limit: 10 })).toEqual(
      [],
    );
    const outbox = (await stores().changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id);
    expect(outbox.map((c) => [c.submissionId, c.action, c.erasure, c.wasHeld, c.blobKeys])).toEqual([
      [live.id, 'erase', 'er-1', false, ['blob-z']],
      [held.id, 'erase', 'er-1', true, []],
    ]);
    await stores().changes.countSubmissionChanges(outbox);
    expect((await stores().submissions.getFormCounts(scope, [f.id])).get(f.id)).toMatchObject({
      submissionCount: 0,
      heldCount: 0,
    });
    // Erased again: nothing to do.
    expect(await stores().changes.changeSubmission(scope, f.id, live.id, 'erase', change())).toBe('not_found');
  });

  it("keeps receipts as given, an organization's newest first, each read only by its organization", async () => {
    const { scope } = await setUp();
    const other = org();
    const first = receiptOf(scope.orgId, randomUUID(), '2026-03-01T00:00:00.000Z');
    const second = receiptOf(scope.orgId, randomUUID(), '2026-03-02T00:00:00.000Z');
    await stores().erasures.saveReceipt(first);
    await stores().erasures.saveReceipt(second);
    await stores().erasures.saveReceipt(second);
    await stores().erasures.saveReceipt(receiptOf(other.orgId, randomUUID(), '2026-03-03T00:00:00.000Z'));
    expect(await stores().erasures.listReceipts(scope, 10)).toEqual([second, first]);
    expect(await stores().erasures.listReceipts(scope, 1)).toEqual([second]);
    expect(await stores().erasures.getReceipt(scope, first.receipt.id)).toEqual(first);
    expect(await stores().erasures.getReceipt(other, first.receipt.id)).toBeNull();
  });

  it('keeps each receipt in the audit outbox until it is marked audited', async () => {
    const { scope } = await setUp();
    const one = receiptOf(scope.orgId, randomUUID(), '2000-01-01T00:00:01.000Z');
    const two = receiptOf(scope.orgId, randomUUID(), '2000-01-01T00:00:02.000Z');
    await stores().erasures.saveReceipt(two);
    await stores().erasures.saveReceipt(one);
    const mine = async () =>
      (await stores().erasures.listUnaudited(100_000)).filter((r) => r.receipt.orgId === scope.orgId);
    expect(await mine()).toEqual([one, two]);
    await stores().erasures.markAudited(one.receipt.id);
    expect(await mine()).toEqual([two]);
    await stores().erasures.markAudited(two.receipt.id);
    expect(await mine()).toEqual([]);
  });
}
