import { randomUUID } from 'node:crypto';
import type { Form, OrgScope } from '@formgate/contracts';
import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { submission as aSubmission, form, org } from './forms-fixtures.ts';

/** The shared fixture, spam (a honeypot reason) or not, with one stored file when `blobKey` is given. */
const submission = (f: Form, createdAt: string, spam = false, blobKey?: string): SubmissionRecord =>
  aSubmission(f, createdAt, {
    files: blobKey ? [{ field: 'cv', blobKey, filename: 'cv.pdf', contentType: 'application/pdf', size: 3 }] : [],
    spam: {
      isSpam: spam,
      reasons: spam
        ? [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }]
        : [],
    },
  });

const DAY1 = '2026-03-01T23:59:59.999Z';
const DAY2 = '2026-03-02T00:00:00.000Z';

/**
 * The guarantees of `SubmissionChanges` (see its JSDoc), with the counters they keep.
 * Outboxes are shared by the tests of one store: each test looks only at its own form's entries.
 */
export function submissionChangesContract(it: ContractIt, stores: () => FormsStores) {
  let n = 0;
  const change = () => ({ id: `chg_${randomUUID()}_${n++}`, occurredAt: new Date().toISOString() });
  const setUp = async (spam: boolean[] = [false, true, false]) => {
    const scope = org();
    const f = form(scope.orgId, { version: 3 });
    await stores().forms.insertForm(f);
    const subs = spam.map((s, i) =>
      submission(f, i === 0 ? DAY1 : DAY2, s, i === 0 ? `blob_${randomUUID()}` : undefined),
    );
    await stores().submissions.insertSubmissions(subs);
    return { scope, f, subs };
  };
  const outboxOf = async (f: Form) =>
    (await stores().changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id);
  /** Counts the form's changes as the `forms.submission` consumer would (again: counting is idempotent). */
  const countChanges = async (f: Form) => stores().changes.countSubmissionChanges(await outboxOf(f));
  const counts = async (scope: OrgScope, f: Form) => {
    await countChanges(f);
    return (await stores().submissions.getFormCounts(scope, [f.id])).get(f.id);
  };
  const days = async (scope: OrgScope, f: Form) => {
    await countChanges(f);
    return stores().submissions.getDailyCounts(scope, f.id, '2026-03-01', '2026-03-31');
  };

  it('counts stored submissions, spam by its verdict, per UTC day, and the newest one', async () => {
    const { scope, f } = await setUp([false, true, false]);
    expect(await counts(scope, f)).toEqual({ submissionCount: 3, spamCount: 1, lastSubmissionAt: DAY2, heldCount: 0 });
    expect(await days(scope, f)).toEqual([
      { day: '2026-03-01', total: 1, spam: 0 },
      { day: '2026-03-02', total: 2, spam: 1 },
    ]);
    expect(await stores().submissions.getDailyCounts(scope, f.id, '2026-03-02', '2026-03-02')).toEqual([
      { day: '2026-03-02', total: 2, spam: 1 },
    ]);
    expect((await stores().submissions.getFormCounts(org(), [f.id])).size).toBe(0);
    const elsewhere = await setUp([true]);
    const some = await stores().submissions.getFormCounts(scope, [f.id, elsewhere.f.id, 'no-such-form']);
    expect([...some.keys()]).toEqual([f.id]);
    expect(await stores().submissions.getFormCounts(scope, [])).toEqual(new Map());
    expect(await stores().submissions.getDailyCounts(org(), f.id, '2026-03-01', '2026-03-31')).toEqual([]);
  });

  it('marks a submission spam and not spam: counters follow, a repeated mark changes nothing', async () => {
    const { scope, f, subs } = await setUp([false, true, false]);
    const [a, b] = subs as [SubmissionRecord, SubmissionRecord];
    const first = change();
    expect(await stores().changes.changeSubmission(scope, f.id, a.id, 'spam', first)).toBe('changed');
    expect(await stores().changes.changeSubmission(scope, f.id, a.id, 'spam', change())).toBe('unchanged');
    expect((await stores().submissions.getSubmission(scope, f.id, a.id))?.spam.isSpam).toBe(true);
    expect(await stores().changes.changeSubmission(scope, f.id, b.id, 'not-spam', change())).toBe('changed');
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 3, spamCount: 1 });
    expect(await days(scope, f)).toEqual([
      { day: '2026-03-01', total: 1, spam: 1 },
      { day: '2026-03-02', total: 2, spam: 0 },
    ]);
    const pending = await outboxOf(f);
    expect(pending.map((c) => [c.submissionId, c.action, c.wasSpam])).toEqual([
      [a.id, 'spam', false],
      [b.id, 'not-spam', true],
    ]);
    expect(pending[0]).toMatchObject({
      id: first.id,
      orgId: scope.orgId,
      receivedAt: DAY1,
      occurredAt: first.occurredAt,
      blobKeys: [],
    });
    await stores().changes.markSubmissionChangePublished(first.id);
    expect((await outboxOf(f)).map((c) => c.action)).toEqual(['not-spam']);
  });

  it('releases a submission from spam once: the first not-spam mark of one ingest judged spam carries it', async () => {
    const { scope, f, subs } = await setUp([true, false]);
    const [spam, clean] = subs as [SubmissionRecord, SubmissionRecord];
    // Ingest's reserved fields: kept while it is spam, for its release.
    const meta = { subject: 'Quote <b>now</b>', replyTo: 'ann@example.com' };
    const withMeta = { ...submission(f, DAY2, true), meta };
    await stores().submissions.insertSubmissions([withMeta]);
    const marks: [SubmissionRecord, 'spam' | 'not-spam'][] = [
      [spam, 'not-spam'],
      [spam, 'spam'],
      [spam, 'not-spam'],
      [clean, 'spam'],
      [clean, 'not-spam'],
      [withMeta, 'not-spam'],
    ];
    for (const [s, action] of marks)
      expect(await stores().changes.changeSubmission(scope, f.id, s.id, action, change())).toBe('changed');
    const pending = await outboxOf(f);
    expect(pending.map((c) => [c.submissionId, c.action, c.wasSpam, c.submission !== undefined])).toEqual([
      [spam.id, 'not-spam', true, true],
      [spam.id, 'spam', false, false],
      [spam.id, 'not-spam', true, false],
      [clean.id, 'spam', false, false],
      [clean.id, 'not-spam', true, false],
      [withMeta.id, 'not-spam', true, true],
    ]);
    expect(pending[0]?.submission).toEqual({ ...spam, spam: { isSpam: false, reasons: spam.spam.reasons } });
    expect(pending[5]?.submission).toEqual({ ...withMeta, spam: { isSpam: false, reasons: withMeta.spam.reasons } });
    expect((await stores().submissions.getSubmission(scope, f.id, withMeta.id))?.meta).toBeUndefined();
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 3, spamCount: 0 });
  });

  it('deletes a submission: reads and counts lose it, its files go to the outbox, a second delete finds nothing', async () => {
    const { scope, f, subs } = await setUp([true, false, false]);
    const [a] = subs as [SubmissionRecord];
    expect(await stores().changes.changeSubmission(scope, f.id, a.id, 'delete', change())).toBe('changed');
    expect(await stores().submissions.getSubmission(scope, f.id, a.id)).toBeNull();
    const listed = await stores().submissions.listSubmissions(scope, f.id, { limit: 10 });
    expect(listed.map((r) => r.id).sort()).toEqual([subs[1]?.id, subs[2]?.id].sort());
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 2, spamCount: 0 });
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 2, spamCount: 0 });
    expect(await days(scope, f)).toEqual([{ day: '2026-03-02', total: 2, spam: 0 }]);
    expect(await stores().changes.changeSubmission(scope, f.id, a.id, 'delete', change())).toBe('not_found');
    expect(await stores().changes.changeSubmission(scope, f.id, a.id, 'spam', change())).toBe('not_found');
    const [deleted] = await outboxOf(f);
    expect(deleted).toMatchObject({
      submissionId: a.id,
      action: 'delete',
      wasSpam: true,
      blobKeys: a.files.map((x) => x.blobKey),
    });
  });

  it('never brings a deleted submission back: a redelivered batch is refused and counts stay exact', async () => {
    const { scope, f, subs } = await setUp([false, true, false]);
    const [a, b] = subs as [SubmissionRecord, SubmissionRecord];
    await stores().changes.changeSubmission(scope, f.id, a.id, 'delete', change());
    await stores().changes.changeSubmission(scope, f.id, b.id, 'delete', change());
    const extra = submission(f, DAY2);
    expect(await stores().submissions.insertSubmissions([...subs, extra])).toBe(1);
    expect(await stores().submissions.getSubmission(scope, f.id, a.id)).toBeNull();
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 2, spamCount: 0 });
    expect(await days(scope, f)).toEqual([{ day: '2026-03-02', total: 2, spam: 0 }]);
    const listed = await stores().submissions.listSubmissions(scope, f.id, { limit: 10 });
    expect(listed.map((r) => r.id)).toEqual([extra.id, subs[2]?.id]);
  });

  it('pages past deleted submissions: full pages, each live one once', async () => {
    const scope = org();
    const f = form(scope.orgId, { version: 3 });
    await stores().forms.insertForm(f);
    const subs = Array.from({ length: 12 }, (_, i) => submission(f, new Date(Date.UTC(2026, 2, 1) + i).toISOString()));
    await stores().submissions.insertSubmissions(subs);
    for (const i of [1, 2, 3, 4, 5, 9]) {
      await stores().changes.changeSubmission(scope, f.id, subs[i]?.id as string, 'delete', change());
    }
    const pages: string[][] = [];
    let after: { seq: number } | undefined;
    for (;;) {
      const page = await stores().submissions.listSubmissions(scope, f.id, { limit: 2, ...(after ? { after } : {}) });
      if (page.length === 0) break;
      pages.push(page.map((r) => r.id));
      after = { seq: (page.at(-1) as { seq: number }).seq };
    }
    const live = [11, 10, 8, 7, 6, 0].map((i) => subs[i]?.id);
    expect(pages).toEqual([live.slice(0, 2), live.slice(2, 4), live.slice(4, 6)]);
  });

  it('changes nothing of another organization’s submission, nor one named under another form', async () => {
    const { scope, f, subs } = await setUp([false]);
    const [a] = subs as [SubmissionRecord];
    const other = form(scope.orgId, { version: 3 });
    await stores().forms.insertForm(other);
    expect(await stores().changes.changeSubmission(org(), f.id, a.id, 'delete', change())).toBe('not_found');
    expect(await stores().changes.changeSubmission(scope, other.id, a.id, 'spam', change())).toBe('not_found');
    expect(await stores().changes.changeSubmission(scope, f.id, 'no-such-id', 'delete', change())).toBe('not_found');
    expect(await stores().submissions.getSubmission(scope, f.id, a.id)).toMatchObject({
      id: a.id,
      spam: { isSpam: false },
    });
    expect(await outboxOf(f)).toEqual([]);
  });

  it('deletes a form at once and leaves its deletion in the outbox; the purge removes what it stored', async () => {
    const { scope, f, subs } = await setUp([false, false]);
    expect(await stores().forms.deleteForm(org(), f.id)).toBeNull();
    expect(await stores().forms.getForm(scope, f.id)).not.toBeNull();
    await stores().changes.changeSubmission(scope, f.id, subs[1]?.id as string, 'spam', change());
    expect(await stores().forms.deleteForm(scope, f.id)).toBe(f.version + 1);
    expect(await stores().forms.deleteForm(scope, f.id)).toBeNull();
    expect(await stores().forms.getForm(scope, f.id)).toBeNull();
    expect((await stores().forms.listForms(scope)).map((x) => x.id)).not.toContain(f.id);
    const deletion = (await stores().forms.listUnpublishedDeletions(100_000)).filter((d) => d.formId === f.id);
    expect(deletion).toEqual([{ formId: f.id, orgId: scope.orgId, key: f.key, version: 4 }]);
    expect(await stores().forms.listFormBlobKeys(f.id)).toEqual(subs[0]?.files.map((x) => x.blobKey));

    await stores().forms.purgeDeletedForm(f.id);
    // A batch in flight when the form was deleted, stored after the purge, is purged by a repeated purge.
    await stores().submissions.insertSubmissions([submission(f, DAY2)]);
    await stores().forms.purgeDeletedForm(f.id);
    await stores().forms.purgeDeletedForm(f.id);
    expect(await stores().forms.listFormBlobKeys(f.id)).toEqual([]);
    expect(await stores().submissions.listSubmissions(scope, f.id, { limit: 10 })).toEqual([]);
    expect(await stores().submissions.getSubmission(scope, f.id, subs[0]?.id as string)).toBeNull();
    expect(await stores().submissions.countSubmissions(scope, f.id)).toBe(0);
    expect((await stores().submissions.getFormCounts(scope, [f.id])).size).toBe(0);
    expect(await days(scope, f)).toEqual([]);
    expect(await outboxOf(f)).toEqual([]);
  });

  it('applies concurrent changes of one submission one at a time, each counted once', async () => {
    const { scope, f, subs } = await setUp([false, false]);
    const [a, b] = subs as [SubmissionRecord, SubmissionRecord];
    const deletes = await Promise.all(
      [1, 2, 3, 4].map(() => stores().changes.changeSubmission(scope, f.id, a.id, 'delete', change())),
    );
    expect(deletes.filter((r) => r === 'changed')).toHaveLength(1);
    expect(deletes.filter((r) => r === 'not_found')).toHaveLength(3);
    const marks = await Promise.all(
      (['spam', 'spam', 'spam'] as const).map((action) =>
        stores().changes.changeSubmission(scope, f.id, b.id, action, change()),
      ),
    );
    expect(marks.filter((r) => r === 'changed')).toHaveLength(1);
    expect(await outboxOf(f)).toHaveLength(2);
    expect(await counts(scope, f)).toMatchObject({ submissionCount: 1, spamCount: 1 });
    const pending = await outboxOf(f);
    await stores().changes.countSubmissionChanges([...pending, ...pending]);
    for (const c of pending) await stores().changes.markSubmissionChangePublished(c.id);
    expect(await outboxOf(f)).toEqual([]);
    expect((await stores().submissions.getFormCounts(scope, [f.id])).get(f.id)).toMatchObject({
      submissionCount: 1,
      spamCount: 1,
    });
  });

  it('completes a deletion whose form is still there (a deletion cut short), and only that form', async () => {
    const { scope, f } = await setUp([false]);
    const kept = await setUp([false]);
    await stores().forms.purgeDeletedForm(f.id);
    expect(await stores().forms.getForm(scope, f.id)).toBeNull();
    expect(await stores().forms.getForm(kept.scope, kept.f.id)).not.toBeNull();
    expect(await stores().submissions.countSubmissions(kept.scope, kept.f.id)).toBe(1);
  });
}
