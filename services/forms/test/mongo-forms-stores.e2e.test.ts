import { randomUUID } from 'node:crypto';
import type { Form, OrgScope } from '@formgate/contracts';
import { mongoSchemaVersion, pageLayout, runMongoMigrations } from '@formgate/store/mongo';
import { useTestMongo } from '@formgate/store/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORMS_MIGRATION_SCOPE, type FormsStores } from '../src/store/forms-stores.ts';
import { mongoFormsMigrations } from '../src/store/mongo/migrations/index.ts';
import { Collections, type CounterDoc, type SubmissionDoc, submissionDoc } from '../src/store/mongo/schema.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { form } from './forms-fixtures.ts';
import { runFormsStoresContracts } from './forms-stores.contract.ts';
import { openMongoFormsStores } from './mongo-stores.ts';

const mongo = useTestMongo();
const db = () => {
  const { db } = mongo();
  if (!db) throw new Error('not connected');
  return db;
};
const WIDTH = 4;
const CURRENT = pageLayout(WIDTH);

// Filtered pages: one indexed find (MongoDB's way), and page buckets first with small buckets (FerretDB's).
runFormsStoresContracts({ name: 'mongo', create: () => openMongoFormsStores(mongo(), { pageRead: 'index' }) });
runFormsStoresContracts({
  name: 'mongo, page width 8, bucket reads',
  create: () => openMongoFormsStores(mongo(), { pageWidth: 8, pageRead: 'buckets' }),
  unorderedExport: true,
});

const submission = (f: Form, i: number): SubmissionRecord => ({
  id: randomUUID(),
  formId: f.id,
  orgId: f.orgId,
  createdAt: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
  fields: [
    { name: 'email', value: `user${i}@example.com` },
    { name: 'message', value: 'hello '.repeat(20) },
  ],
  files: [],
  spam: { isSpam: false, reasons: [] },
  held: false,
});

const listed = async (stores: FormsStores, scope: OrgScope, f: Form) =>
  (await stores.submissions.listSubmissions(scope, f.id, { limit: 100 })).map((r) => [r.id, r.seq]);

describe('mongo forms stores: batches, positions and counters', () => {
  let stores: FormsStores;
  let scope: OrgScope;
  beforeAll(async () => {
    stores = await openMongoFormsStores(mongo(), { pageWidth: WIDTH });
  });
  const freshForm = async () => {
    scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await stores.forms.insertForm(f);
    return f;
  };

  it('inserts a batch of 5,000 submissions in one call and counts them', async () => {
    const f = await freshForm();
    const batch = Array.from({ length: 5_000 }, (_, i) => submission(f, i));
    expect(await stores.submissions.insertSubmissions(batch)).toBe(5_000);
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(5_000);
    const [newest] = await stores.submissions.listSubmissions(scope, f.id, { limit: 1 });
    expect(newest).toEqual({ ...batch.at(-1), seq: 4_999 });
    const deep = await stores.submissions.listSubmissions(scope, f.id, { limit: 3, after: { seq: 500 } });
    expect(deep.map((r) => r.id)).toEqual([499, 498, 497].map((i) => batch[i]?.id));
  });

  it('counts a batch cut short after reserving its positions once, when it is redelivered', async () => {
    const f = await freshForm();
    const g = form(scope.orgId);
    await stores.forms.insertForm(g);
    const s = Array.from({ length: 8 }, (_, i) => submission(f, i));
    expect(await stores.submissions.insertSubmissions(s.slice(0, 3))).toBe(3);
    // The cut-short batch s[3..6]: positions 3–6 reserved, only s[3] and s[4] written.
    await db()
      .collection<CounterDoc>(Collections.counters)
      .updateOne({ _id: f.id }, { $set: { pending: 4 } });
    await db()
      .collection<SubmissionDoc>(Collections.submissions)
      .insertMany([
        submissionDoc(s[3] as SubmissionRecord, 3, CURRENT),
        submissionDoc(s[4] as SubmissionRecord, 4, CURRENT),
      ]);
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(3);
    const redelivered = [...s.slice(3), submission(g, 0)];
    expect(await stores.submissions.insertSubmissions(redelivered)).toBe(4);
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(8);
    expect(await stores.submissions.countSubmissions(scope, g.id)).toBe(1);
    expect(await listed(stores, scope, f)).toEqual(
      [7, 6, 5, 4, 3, 2, 1, 0].map((i) => [s[i]?.id, [9, 8, 7, 4, 3, 2, 1, 0][7 - i]]),
    );
    expect(await stores.submissions.insertSubmissions(redelivered)).toBe(0);
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(8);
  });

  it('gives a fully redelivered batch no positions, so the next one continues without a gap', async () => {
    const f = await freshForm();
    const batch = [0, 1, 2].map((i) => submission(f, i));
    await stores.submissions.insertSubmissions(batch);
    expect(await stores.submissions.insertSubmissions(batch)).toBe(0);
    const next = submission(f, 3);
    expect(await stores.submissions.insertSubmissions([next])).toBe(1);
    expect(await listed(stores, scope, f)).toEqual([next, ...batch.reverse()].map((r, i) => [r.id, 3 - i]));
  });

  it('finishes a purge cut short after the deletions were written, announcing each form once', async () => {
    const f = await freshForm();
    await stores.submissions.insertSubmissions([submission(f, 0)]);
    await db()
      .collection<{ _id: string; orgId: string; key: string; version: number }>('form_deletions')
      .insertOne({ _id: f.id, orgId: scope.orgId, key: f.key, version: 2 });
    expect(await stores.forms.purgeOrganization(scope)).toBe(1);
    expect(await stores.forms.getForm(scope, f.id)).toBeNull();
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(0);
    expect(await db().collection(Collections.submissions).countDocuments({ formId: f.id })).toBe(0);
    const pending = (await stores.forms.listUnpublishedDeletions(10_000)).filter((d) => d.orgId === scope.orgId);
    expect(pending).toEqual([{ formId: f.id, orgId: scope.orgId, key: f.key, version: 2 }]);
  });

  const counts = async (f: Form) => (await stores.submissions.getFormCounts(scope, [f.id])).get(f.id);
  const days = (f: Form) => stores.submissions.getDailyCounts(scope, f.id, '2026-01-01', '2026-01-31');

  it('counts a submission a cut-short batch stored, then marked and deleted, exactly once when redelivered', async () => {
    const f = await freshForm();
    const s = [0, 1, 2].map((i) => ({
      ...submission(f, i),
      spam: {
        isSpam: true,
        reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
      },
    }));
    expect(await stores.submissions.insertSubmissions(s.slice(0, 1))).toBe(1);
    // The cut-short batch s[1..2]: positions 1–2 reserved, both written, never committed.
    await db()
      .collection<CounterDoc>(Collections.counters)
      .updateOne({ _id: f.id }, { $set: { pending: 2 } });
    await db()
      .collection<SubmissionDoc>(Collections.submissions)
      .insertMany([1, 2].map((i) => submissionDoc(s[i] as SubmissionRecord, i, CURRENT)));
    const change = (id: string) => ({ id, occurredAt: new Date().toISOString() });
    expect(
      await stores.changes.changeSubmission(scope, f.id, s[1]?.id as string, 'not-spam', change(randomUUID())),
    ).toBe('changed');
    expect(await stores.changes.changeSubmission(scope, f.id, s[2]?.id as string, 'delete', change(randomUUID()))).toBe(
      'changed',
    );
    expect(await stores.submissions.insertSubmissions(s)).toBe(0);
    await stores.changes.countSubmissionChanges(
      (await stores.changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id),
    );
    expect(await counts(f)).toMatchObject({ submissionCount: 2, spamCount: 1 });
    expect(await days(f)).toEqual([{ day: '2026-01-01', total: 2, spam: 1 }]);
  });

  it('applies a change whose request died after claiming it, once it is abandoned, and publishes it in order', async () => {
    const f = await freshForm();
    const [a, b] = [submission(f, 0), submission(f, 1)] as [SubmissionRecord, SubmissionRecord];
    await stores.submissions.insertSubmissions([a, b]);
    const outbox = db().collection(Collections.submissionChanges);
    const claim = (s: SubmissionRecord, eventId: string, at: number) => ({
      _id: `${s.id}#1`,
      eventId,
      v: 0,
      applied: false,
      formId: f.id,
      orgId: scope.orgId,
      submissionId: s.id,
      action: 'delete',
      wasSpam: false,
      receivedSpam: false,
      receivedAt: s.createdAt,
      occurredAt: new Date(at).toISOString(),
      blobKeys: [],
      at,
    });
    // A request claimed a's deletion a minute ago and died; one claimed b's just now and is still applying it.
    await outbox.insertMany([claim(a, 'died', Date.now() - 60_000), claim(b, 'young', Date.now())] as never[]);
    const change = { id: randomUUID(), occurredAt: new Date().toISOString() };
    // b's next version is taken: a change of b now waits for the claim to be applied (409, retryable).
    await expect(stores.changes.changeSubmission(scope, f.id, b.id, 'spam', change)).rejects.toMatchObject({
      code: 'FORMS_CONCURRENT_UPDATE',
    });
    const ready = (await stores.changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id);
    expect(ready.map((c) => c.id)).toEqual(['died']);
    expect(await stores.submissions.getSubmission(scope, f.id, a.id)).toBeNull();
    expect(await stores.submissions.getSubmission(scope, f.id, b.id)).not.toBeNull();
    await stores.changes.countSubmissionChanges(ready);
    await stores.changes.markSubmissionChangePublished('died');
    expect(await counts(f)).toMatchObject({ submissionCount: 1, spamCount: 0 });
    expect(await outbox.countDocuments({ eventId: 'died' } as never)).toBe(0);
  });

  it('never lists or exports a tombstone (`deleted: true`, left by deleting a submission)', async () => {
    const f = await freshForm();
    const [gone, kept] = [submission(f, 0), submission(f, 1)];
    await stores.submissions.insertSubmissions([gone, kept]);
    await db()
      .collection<{ _id: string }>(Collections.submissions)
      .updateOne({ _id: gone.id }, { $set: { deleted: true } });
    for (const pageRead of ['index', 'buckets'] as const) {
      const s = await openMongoFormsStores(mongo(), { pageWidth: WIDTH, pageRead });
      const found = await s.submissions.findSubmissions(scope, f.id, { filter: { terms: ['hello'] }, limit: 10 });
      expect(found.map((r) => r.id)).toEqual([kept.id]);
      const exported: string[] = [];
      for await (const batch of s.submissions.exportSubmissions(scope, f.id, {}))
        exported.push(...batch.map((r) => r.id));
      expect(exported).toEqual([kept.id]);
    }
  });

  it('deleting a submission erases its origin and referer with its fields', async () => {
    const f = await freshForm();
    const s = { ...submission(f, 0), origin: 'https://shop.example', referer: 'https://shop.example/contact' };
    await stores.submissions.insertSubmissions([s]);
    const raw = () => db().collection<SubmissionDoc>(Collections.submissions).findOne({ _id: s.id });
    expect(await raw()).toMatchObject({ origin: s.origin, referer: s.referer });
    const change = { id: randomUUID(), occurredAt: new Date().toISOString() };
    expect(await stores.changes.changeSubmission(scope, f.id, s.id, 'delete', change)).toBe('changed');
    const tombstone = await raw();
    expect(tombstone).toMatchObject({ deleted: true, fields: [], files: [] });
    expect(tombstone).not.toHaveProperty('origin');
    expect(tombstone).not.toHaveProperty('referer');
  });
});

describe('mongo forms store migrations', () => {
  const indexes = async (name: string) =>
    (await db().collection(name).listIndexes().toArray()).map((x) => x.name as string).sort();

  it('bring an empty database to the latest shape: every collection that is queried by more than `_id` has its indexes', async () => {
    await openMongoFormsStores(mongo());
    expect(await mongoSchemaVersion(db(), FORMS_MIGRATION_SCOPE)).toBe(mongoFormsMigrations.length);
    expect(await indexes(Collections.forms)).toEqual(['_id_', 'key', 'org_created', 'org_slug']);
    expect(await indexes(Collections.formOutbox)).toEqual(['_id_', 'form_version']);
    expect(await indexes(Collections.submissions)).toEqual([
      '_id_',
      'file_blobs',
      'form_held',
      'form_live_time',
      'form_page',
      'form_seq_time',
      'form_spam',
      'form_terms',
      'org_addresses',
      'org_held',
    ]);
    expect(await indexes(Collections.erasures)).toEqual(['_id_', 'org_erased']);
    // A second boot (or a second instance) finds nothing left to do.
    expect(await runMongoMigrations(db(), FORMS_MIGRATION_SCOPE, mongoFormsMigrations)).toMatchObject({ applied: [] });
  });
});
