import { randomUUID } from 'node:crypto';
import type { Form, OrgScope } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { form, org } from './forms-fixtures.ts';

function submission(f: Form, createdAt: string, held: boolean, spam = false): SubmissionRecord {
  return {
    id: randomUUID(),
    formId: f.id,
    orgId: f.orgId,
    createdAt,
    fields: [{ name: 'message', value: `<b>hi</b> ${createdAt}` }],
    files: [],
    spam: {
      isSpam: spam,
      reasons: spam
        ? [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }]
        : [],
    },
    held,
    origin: 'https://site.example',
    ...(held ? { meta: { subject: 'Hello', replyTo: 'ann@example.com' } } : {}),
  };
}

const at = (minute: number) => `2026-03-0${1 + (minute % 2)}T10:${String(minute).padStart(2, '0')}:00.000Z`;

/**
 * The guarantees of `HeldSubmissions` (see its JSDoc), and of `release` in `SubmissionChanges`.
 */
export function heldSubmissionsContract(it: ContractIt, stores: () => FormsStores) {
  let n = 0;
  const change = () => ({ id: `rel_${randomUUID()}_${n++}`, occurredAt: '2026-04-01T00:00:00.000Z' });
  const outboxOf = async (f: Form) =>
    (await stores().changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id);
  const counts = async (scope: OrgScope, f: Form) => {
    await stores().changes.countSubmissionChanges(await outboxOf(f));
    return (await stores().submissions.getFormCounts(scope, [f.id])).get(f.id);
  };
  const days = async (scope: OrgScope, f: Form) => {
    await stores().changes.countSubmissionChanges(await outboxOf(f));
    return stores().submissions.getDailyCounts(scope, f.id, '2026-03-01', '2026-03-31');
  };
  /** Two forms of one organization: `f` with 2 visible and 3 held (one spam), `g` with 1 held. */
  const setUp = async () => {
    const scope = org();
    const [f, g] = [form(scope.orgId), form(scope.orgId)] as [Form, Form];
    await stores().forms.insertForm(f);
    await stores().forms.insertForm(g);
    const visible = [submission(f, at(0), false), submission(f, at(1), false, true)];
    // Stored in another order than received: oldest first is by `createdAt`, whatever the storage order.
    const held = [submission(f, at(7), true), submission(f, at(3), true, true), submission(f, at(5), true)];
    const elsewhere = submission(g, at(4), true);
    await stores().submissions.insertSubmissions([...visible, held[0] as SubmissionRecord]);
    await stores().submissions.insertSubmissions([held[1] as SubmissionRecord, elsewhere, held[2] as SubmissionRecord]);
    return { scope, f, g, visible, held, elsewhere };
  };

  it('counts held submissions only as held, and lists the organization’s oldest held first', async () => {
    const { scope, f, g, held, elsewhere } = await setUp();
    expect(await counts(scope, f)).toEqual({
      submissionCount: 2,
      spamCount: 1,
      lastSubmissionAt: at(1),
      heldCount: 3,
    });
    expect(await counts(scope, g)).toMatchObject({ submissionCount: 0, heldCount: 1 });
    expect(await days(scope, f)).toEqual([
      { day: '2026-03-01', total: 1, spam: 0 },
      { day: '2026-03-02', total: 1, spam: 1 },
    ]);
    expect(await stores().held.countHeld(scope)).toBe(4);
    expect(await stores().held.countHeld(org())).toBe(0);
    const oldest = await stores().held.listOldestHeld(scope, 10);
    // `elsewhere` (another form) was received on the 1st, the others on the 2nd.
    expect(oldest.map((s) => s.id)).toEqual([elsewhere, held[1], held[2], held[0]].map((s) => s?.id));
    expect(oldest.every((s) => s.held)).toBe(true);
    expect(oldest[0]).not.toHaveProperty('meta');
    expect((await stores().held.listOldestHeld(scope, 2)).map((s) => s.id)).toEqual([elsewhere.id, held[1]?.id]);
    expect(await stores().held.listOldestHeld(org(), 10)).toEqual([]);
    const page = await stores().submissions.findSubmissions(scope, f.id, { filter: { held: false }, limit: 10 });
    expect(page.map((s) => s.held)).toEqual([false, false]);
  });

  it('releases a held submission once: visible, counted on its day, in the outbox with the whole submission', async () => {
    const { scope, f, held } = await setUp();
    const [latest, spam] = held as [SubmissionRecord, SubmissionRecord, SubmissionRecord];
    const first = change();
    expect(await stores().changes.changeSubmission(scope, f.id, spam.id, 'release', first)).toBe('changed');
    expect(await stores().changes.changeSubmission(scope, f.id, spam.id, 'release', change())).toBe('unchanged');
    expect(await stores().changes.changeSubmission(scope, f.id, latest.id, 'release', change())).toBe('changed');
    expect(await stores().submissions.getSubmission(scope, f.id, spam.id)).toMatchObject({
      held: false,
      fields: spam.fields,
    });
    expect(await stores().submissions.getSubmission(scope, f.id, spam.id)).not.toHaveProperty('meta');
    expect(await counts(scope, f)).toEqual({
      submissionCount: 4,
      spamCount: 2,
      lastSubmissionAt: at(7),
      heldCount: 1,
    });
    // Counting is idempotent by change id.
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 4, heldCount: 1 });
    expect(await days(scope, f)).toEqual([
      { day: '2026-03-01', total: 1, spam: 0 },
      { day: '2026-03-02', total: 3, spam: 2 },
    ]);
    expect(await stores().held.countHeld(scope)).toBe(2);
    const pending = await outboxOf(f);
    expect(pending.map((c) => [c.submissionId, c.action])).toEqual([
      [spam.id, 'release'],
      [latest.id, 'release'],
    ]);
    expect(pending[0]).toMatchObject({
      id: first.id,
      orgId: scope.orgId,
      wasSpam: true,
      receivedAt: spam.createdAt,
      occurredAt: first.occurredAt,
      submission: { ...spam, held: false },
    });
    const listed = await stores().submissions.findSubmissions(scope, f.id, { filter: { held: false }, limit: 10 });
    expect(
      listed
        .map((s) => s.id)
        .slice(0, 2)
        .sort(),
    ).toEqual([latest.id, spam.id].sort());
    expect((await stores().held.listOldestHeld(scope, 10)).map((s) => s.id)).not.toContain(spam.id);
  });

  it('lets the API’s actions not find a held submission, and a release not change a visible one', async () => {
    const { scope, f, visible, held } = await setUp();
    const h = held[0] as SubmissionRecord;
    for (const action of ['delete', 'spam', 'not-spam'] as const) {
      expect(await stores().changes.changeSubmission(scope, f.id, h.id, action, change())).toBe('not_found');
    }
    expect(await stores().changes.changeSubmission(scope, f.id, visible[0]?.id as string, 'release', change())).toBe(
      'unchanged',
    );
    expect(await stores().changes.changeSubmission(org(), f.id, h.id, 'release', change())).toBe('not_found');
    expect(await outboxOf(f)).toEqual([]);
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 2, heldCount: 3 });
  });

  it('releases a submission once when two releases race, and counts it once', async () => {
    const { scope, f, held } = await setUp();
    const h = held[1] as SubmissionRecord;
    const results = await Promise.all([
      stores().changes.changeSubmission(scope, f.id, h.id, 'release', change()),
      stores().changes.changeSubmission(scope, f.id, h.id, 'release', change()),
    ]);
    expect(results.sort()).toEqual(['changed', 'unchanged']);
    expect((await outboxOf(f)).length).toBe(1);
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 3, spamCount: 2, heldCount: 2 });
  });

  it('keeps one release ledger per organization, replaced whole, gone with the organization', async () => {
    const [a, b] = [org(), org()];
    expect(await stores().held.getReleaseLedger(a)).toBeNull();
    await stores().held.saveReleaseLedger({ orgId: a.orgId, period: '2026-03', level: 5, owed: 2, done: 0 });
    await stores().held.saveReleaseLedger({ orgId: a.orgId, period: '2026-03', level: 5, owed: 2, done: 2 });
    expect(await stores().held.getReleaseLedger(a)).toEqual({
      orgId: a.orgId,
      period: '2026-03',
      level: 5,
      owed: 2,
      done: 2,
    });
    expect(await stores().held.getReleaseLedger(b)).toBeNull();
    await stores().held.saveReleaseLedger({ orgId: b.orgId, period: '2026-03', level: 1, owed: 1, done: 1 });
    await stores().forms.purgeOrganization(a);
    expect(await stores().held.getReleaseLedger(a)).toBeNull();
    expect(await stores().held.getReleaseLedger(b)).not.toBeNull();
  });
}
