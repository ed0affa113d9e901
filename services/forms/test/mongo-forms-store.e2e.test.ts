import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form, type OrgScope } from '@formgate/contracts';
import { useTestMongo } from '@formgate/store/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FormsStore } from '../src/store/forms-store.ts';
import { FIELD_NAMES } from '../src/store/mongo-field-names.ts';
import { createMongoFormsStore } from '../src/store/mongo-forms-store.ts';
import { LEGACY_SUBMISSIONS } from '../src/store/mongo-legacy-submissions.ts';
import { SUBMISSION_CHANGES } from '../src/store/mongo-submission-changes.ts';
import { isFerretDb, MIGRATIONS } from '../src/store/mongo-submission-query.ts';
import {
  COUNTERS,
  type CounterDoc,
  SUBMISSIONS,
  type SubmissionDoc,
  submissionDoc,
} from '../src/store/mongo-submissions.ts';
import { bucketKeys, legacyLayout, pageLayout } from '../src/store/page-buckets.ts';
import type { SubmissionRecord } from '../src/store/submission-record.ts';
import { runFormsStoreContract } from './forms-store.contract.ts';

const mongo = useTestMongo();
const db = () => {
  const { db } = mongo();
  if (!db) throw new Error('not connected');
  return db;
};
const WIDTH = 4;
const CURRENT = pageLayout(WIDTH);
const LEGACY = legacyLayout(WIDTH);

// Filtered pages: one indexed find (MongoDB's way), and page buckets first with small buckets (FerretDB's).
runFormsStoreContract({ name: 'mongo', create: () => createMongoFormsStore(mongo(), { findStrategy: 'index' }) });
runFormsStoreContract({
  name: 'mongo, page width 8, bucket reads',
  create: () => createMongoFormsStore(mongo(), { pageWidth: 8, findStrategy: 'buckets' }),
  unorderedExport: true,
});

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

const listed = async (store: FormsStore, scope: OrgScope, f: Form) =>
  (await store.listSubmissions(scope, f.id, { limit: 100 })).map((r) => [r.id, r.seq]);

describe('mongo FormsStore: batches, positions and counters', () => {
  let store: FormsStore;
  let scope: OrgScope;
  beforeAll(async () => {
    store = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
  });
  const freshForm = async () => {
    scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await store.insertForm(f);
    return f;
  };

  it('inserts a batch of 5,000 submissions in one call and counts them', async () => {
    const f = await freshForm();
    const batch = Array.from({ length: 5_000 }, (_, i) => submission(f, i));
    expect(await store.insertSubmissions(batch)).toBe(5_000);
    expect(await store.countSubmissions(scope, f.id)).toBe(5_000);
    const [newest] = await store.listSubmissions(scope, f.id, { limit: 1 });
    expect(newest).toEqual({ ...batch.at(-1), seq: 4_999 });
    const deep = await store.listSubmissions(scope, f.id, { limit: 3, after: { seq: 500 } });
    expect(deep.map((r) => r.id)).toEqual([499, 498, 497].map((i) => batch[i]?.id));
  });

  it('counts a batch cut short after reserving its positions once, when it is redelivered', async () => {
    const f = await freshForm();
    const g = form(scope.orgId);
    await store.insertForm(g);
    const s = Array.from({ length: 8 }, (_, i) => submission(f, i));
    expect(await store.insertSubmissions(s.slice(0, 3))).toBe(3);
    // The cut-short batch s[3..6]: positions 3–6 reserved, only s[3] and s[4] written.
    await db()
      .collection<CounterDoc>(COUNTERS)
      .updateOne({ _id: f.id }, { $set: { pending: 4 } });
    await db()
      .collection<SubmissionDoc>(SUBMISSIONS)
      .insertMany([
        submissionDoc(s[3] as SubmissionRecord, 3, CURRENT),
        submissionDoc(s[4] as SubmissionRecord, 4, CURRENT),
      ]);
    expect(await store.countSubmissions(scope, f.id)).toBe(3);
    const redelivered = [...s.slice(3), submission(g, 0)];
    expect(await store.insertSubmissions(redelivered)).toBe(4);
    expect(await store.countSubmissions(scope, f.id)).toBe(8);
    expect(await store.countSubmissions(scope, g.id)).toBe(1);
    expect(await listed(store, scope, f)).toEqual(
      [7, 6, 5, 4, 3, 2, 1, 0].map((i) => [s[i]?.id, [9, 8, 7, 4, 3, 2, 1, 0][7 - i]]),
    );
    expect(await store.insertSubmissions(redelivered)).toBe(0);
    expect(await store.countSubmissions(scope, f.id)).toBe(8);
  });

  it('gives a fully redelivered batch no positions, so the next one continues without a gap', async () => {
    const f = await freshForm();
    const batch = [0, 1, 2].map((i) => submission(f, i));
    await store.insertSubmissions(batch);
    expect(await store.insertSubmissions(batch)).toBe(0);
    const next = submission(f, 3);
    expect(await store.insertSubmissions([next])).toBe(1);
    expect(await listed(store, scope, f)).toEqual([next, ...batch.reverse()].map((r, i) => [r.id, 3 - i]));
  });

  it('finishes a purge cut short after the deletions were written, announcing each form once', async () => {
    const f = await freshForm();
    await store.insertSubmissions([submission(f, 0)]);
    await db()
      .collection<{ _id: string; orgId: string; key: string; version: number }>('form_deletions')
      .insertOne({ _id: f.id, orgId: scope.orgId, key: f.key, version: 2 });
    expect(await store.purgeOrganization(scope)).toBe(1);
    expect(await store.getForm(scope, f.id)).toBeNull();
    expect(await store.countSubmissions(scope, f.id)).toBe(0);
    expect(await db().collection(SUBMISSIONS).countDocuments({ formId: f.id })).toBe(0);
    const pending = (await store.listUnpublishedDeletions(10_000)).filter((d) => d.orgId === scope.orgId);
    expect(pending).toEqual([{ formId: f.id, orgId: scope.orgId, key: f.key, version: 2 }]);
  });

  it('moves submissions stored before positions into the read model, in the order they were listed', async () => {
    const f = await freshForm();
    const old = [3, 1, 2, 0, 2].map((i) => submission(f, i));
    const legacy = db().collection<{ _id: string }>(LEGACY_SUBMISSIONS);
    await legacy.insertMany(old.map(({ id, ...rest }) => ({ _id: id, ...rest })));
    await db().collection<CounterDoc>(COUNTERS).insertOne({ _id: f.id, orgId: f.orgId, count: 4 });
    const expected = [...old].sort((x, y) =>
      x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1,
    );
    // A move cut short earlier had already copied the oldest one (moves file under the legacy layout).
    await db()
      .collection<SubmissionDoc>(SUBMISSIONS)
      .insertOne(submissionDoc(expected.at(-1) as SubmissionRecord, 0, LEGACY));

    const upgraded = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    expect(await listed(upgraded, scope, f)).toEqual(expected.map((r, i) => [r.id, 4 - i]));
    expect(await upgraded.countSubmissions(scope, f.id)).toBe(5);
    expect(await db().listCollections({ name: LEGACY_SUBMISSIONS }).toArray()).toEqual([]);
    const next = submission(f, 0);
    expect(await upgraded.insertSubmissions([next])).toBe(1);
    expect((await upgraded.listSubmissions(scope, f.id, { limit: 1 }))[0]?.id).toBe(next.id);
  });

  it('pages a form written under both layouts (ADR 0059), and settles a batch the old layout cut short', async () => {
    const f = await freshForm();
    const s = Array.from({ length: 17 }, (_, i) => submission(f, i));
    // Before the upgrade: positions 0–9 filed under the legacy layout, and a batch holding 10–12 cut short after
    // writing 10 and 11 (its counter has no `pagesFrom`).
    await db()
      .collection<SubmissionDoc>(SUBMISSIONS)
      .insertMany(s.slice(0, 12).map((r, i) => submissionDoc(r, i, LEGACY)));
    await db()
      .collection<CounterDoc>(COUNTERS)
      .insertOne({ _id: f.id, orgId: f.orgId, count: 10, seq: 10, pending: 3, spam: 0, days: {} });
    const upgraded = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    // The cut-short batch redelivered with more: 10 and 11 are settled from the legacy buckets; the batch reserves
    // 12–18, its first two are refused as duplicates (a gap, ADR 0015) and the others stored at 14–18.
    expect(await upgraded.insertSubmissions(s.slice(10))).toBe(5);
    const counter = await db().collection<CounterDoc>(COUNTERS).findOne({ _id: f.id });
    expect(counter).toMatchObject({ seq: 19, count: 17, pagesFrom: 12 });
    const newest = await db()
      .collection<SubmissionDoc>(SUBMISSIONS)
      .findOne({ _id: s[16]?.id as string });
    expect(newest?.buckets).toEqual(bucketKeys(18, CURRENT));
    // Every page size walks all 17 once, newest first, across the boundary.
    const all = s.map((r, i) => [r.id, i < 12 ? i : i + 2]).reverse();
    for (const limit of [1, 2, 3, 5, 100]) {
      const seen: unknown[] = [];
      let after: { seq: number } | undefined;
      for (;;) {
        const page = await upgraded.listSubmissions(scope, f.id, { limit, ...(after ? { after } : {}) });
        seen.push(...page.map((r) => [r.id, r.seq]));
        if (page.length < limit) break;
        after = { seq: page.at(-1)?.seq as number };
      }
      expect(seen).toEqual(all);
    }
    // A filtered page (bucket reads) crosses it too.
    for (const strategy of ['buckets', 'index'] as const) {
      const s2 = await createMongoFormsStore(mongo(), {
        pageWidth: WIDTH,
        legacyPageWidth: WIDTH,
        findStrategy: strategy,
      });
      const found = await s2.findSubmissions(scope, f.id, { filter: { spam: false }, limit: 100 });
      expect(found.map((r) => [r.id, r.seq])).toEqual(all);
    }
  });

  const counts = async (f: Form) => (await store.getFormCounts(scope, [f.id])).get(f.id);
  const days = (f: Form) => store.getDailyCounts(scope, f.id, '2026-01-01', '2026-01-31');

  it('counts a submission a cut-short batch stored, then marked and deleted, exactly once when redelivered', async () => {
    const f = await freshForm();
    const s = [0, 1, 2].map((i) => ({
      ...submission(f, i),
      spam: {
        isSpam: true,
        reasons: [{ layer: 'honeypot' as const, rule: 'field-filled', detail: 'honeypot field _gotcha was filled' }],
      },
    }));
    expect(await store.insertSubmissions(s.slice(0, 1))).toBe(1);
    // The cut-short batch s[1..2]: positions 1–2 reserved, both written, never committed.
    await db()
      .collection<CounterDoc>(COUNTERS)
      .updateOne({ _id: f.id }, { $set: { pending: 2 } });
    await db()
      .collection<SubmissionDoc>(SUBMISSIONS)
      .insertMany([1, 2].map((i) => submissionDoc(s[i] as SubmissionRecord, i, CURRENT)));
    const change = (id: string) => ({ id, occurredAt: new Date().toISOString() });
    expect(await store.changeSubmission(scope, f.id, s[1]?.id as string, 'not-spam', change(randomUUID()))).toBe(
      'changed',
    );
    expect(await store.changeSubmission(scope, f.id, s[2]?.id as string, 'delete', change(randomUUID()))).toBe(
      'changed',
    );
    expect(await store.insertSubmissions(s)).toBe(0);
    await store.countSubmissionChanges(
      (await store.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id),
    );
    expect(await counts(f)).toMatchObject({ submissionCount: 2, spamCount: 1 });
    expect(await days(f)).toEqual([{ day: '2026-01-01', total: 2, spam: 1 }]);
  });

  it('applies a change whose request died after claiming it, once it is abandoned, and publishes it in order', async () => {
    const f = await freshForm();
    const [a, b] = [submission(f, 0), submission(f, 1)] as [SubmissionRecord, SubmissionRecord];
    await store.insertSubmissions([a, b]);
    const outbox = db().collection(SUBMISSION_CHANGES);
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
    await expect(store.changeSubmission(scope, f.id, b.id, 'spam', change)).rejects.toMatchObject({
      code: 'FORMS_CONCURRENT_UPDATE',
    });
    const ready = (await store.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === f.id);
    expect(ready.map((c) => c.id)).toEqual(['died']);
    expect(await store.getSubmission(scope, f.id, a.id)).toBeNull();
    expect(await store.getSubmission(scope, f.id, b.id)).not.toBeNull();
    await store.countSubmissionChanges(ready);
    await store.markSubmissionChangePublished('died');
    expect(await counts(f)).toMatchObject({ submissionCount: 1, spamCount: 0 });
    expect(await outbox.countDocuments({ eventId: 'died' } as never)).toBe(0);
  });

  it('computes spam and daily counts once for counters from before them', async () => {
    const f = await freshForm();
    await store.insertSubmissions(
      [0, 1, 2].map((i) => ({ ...submission(f, i), spam: { isSpam: i === 1, reasons: [] } })),
    );
    await db()
      .collection<CounterDoc>(COUNTERS)
      .updateOne({ _id: f.id }, { $unset: { spam: '', days: '', lastAt: '' } });
    const upgraded = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    expect((await upgraded.getFormCounts(scope, [f.id])).get(f.id)).toEqual({
      submissionCount: 3,
      spamCount: 1,
      lastSubmissionAt: submission(f, 2).createdAt,
      heldCount: 0,
    });
    expect(await upgraded.getDailyCounts(scope, f.id, '2026-01-01', '2026-01-01')).toEqual([
      { day: '2026-01-01', total: 3, spam: 1 },
    ]);
  });

  it('never lists or exports a tombstone (`deleted: true`, left by deleting a submission)', async () => {
    const f = await freshForm();
    const [gone, kept] = [submission(f, 0), submission(f, 1)];
    await store.insertSubmissions([gone, kept]);
    await db()
      .collection<{ _id: string }>(SUBMISSIONS)
      .updateOne({ _id: gone.id }, { $set: { deleted: true } });
    for (const strategy of ['index', 'buckets'] as const) {
      const s = await createMongoFormsStore(mongo(), {
        pageWidth: WIDTH,
        legacyPageWidth: WIDTH,
        findStrategy: strategy,
      });
      const found = await s.findSubmissions(scope, f.id, { filter: { terms: ['hello'] }, limit: 10 });
      expect(found.map((r) => r.id)).toEqual([kept.id]);
      const exported: string[] = [];
      for await (const batch of s.exportSubmissions(scope, f.id, {})) exported.push(...batch.map((r) => r.id));
      expect(exported).toEqual([kept.id]);
    }
  });

  it('deleting a submission erases its origin and referer with its fields', async () => {
    const f = await freshForm();
    const s = { ...submission(f, 0), origin: 'https://shop.example', referer: 'https://shop.example/contact' };
    await store.insertSubmissions([s]);
    const raw = () => db().collection<SubmissionDoc>(SUBMISSIONS).findOne({ _id: s.id });
    expect(await raw()).toMatchObject({ origin: s.origin, referer: s.referer });
    const change = { id: randomUUID(), occurredAt: new Date().toISOString() };
    expect(await store.changeSubmission(scope, f.id, s.id, 'delete', change)).toBe('changed');
    const tombstone = await raw();
    expect(tombstone).toMatchObject({ deleted: true, fields: [], files: [] });
    expect(tombstone).not.toHaveProperty('origin');
    expect(tombstone).not.toHaveProperty('referer');
  });

  it('recognizes FerretDB (the e2e default), so filtered pages read page buckets first there', async () => {
    const info = await db().admin().command({ buildInfo: 1 });
    expect(await isFerretDb(db())).toBe(JSON.stringify(info).toLowerCase().includes('ferretdb'));
    if (process.env.TEST_FERRETDB_PORT && process.env.MONGO_URL?.includes(`:${process.env.TEST_FERRETDB_PORT}`)) {
      expect(await isFerretDb(db())).toBe(true);
    }
  });

  it('gives documents stored before search their terms and their form its field names at boot', async () => {
    const f = await freshForm();
    const old = [0, 1].map((i) => submission(f, i));
    await store.insertSubmissions(old);
    await db()
      .collection(SUBMISSIONS)
      .updateMany({ formId: f.id }, { $unset: { terms: '' } });
    await db().collection<{ _id: string }>(FIELD_NAMES).deleteOne({ _id: f.id });
    // A database from before search has no record of the backfill either.
    await db().collection<{ _id: string }>(MIGRATIONS).deleteMany({});
    const search = async (s: FormsStore, word: string) =>
      (await s.findSubmissions(scope, f.id, { filter: { terms: [word] }, limit: 10 })).map((r) => r.id);
    expect(await search(store, 'user1')).toEqual([]);
    const upgraded = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    expect(await search(upgraded, 'user1')).toEqual([old[1]?.id]);
    expect(await search(upgraded, 'hello')).toEqual([old[1]?.id, old[0]?.id]);
    expect(await upgraded.listFieldNames(scope, f.id)).toEqual(['email', 'message']);

    // Done once: a later boot does not look again (the look reads every submission on FerretDB).
    await db()
      .collection(SUBMISSIONS)
      .updateMany({ formId: f.id }, { $unset: { terms: '' } });
    const restarted = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    expect(await search(restarted, 'user1')).toEqual([]);
  });
});

describe('mongo FormsStore: the form outbox has one writer per document', () => {
  const settingsOf = (n: number) => ({ ...DEFAULT_FORM_SETTINGS, redirectUrl: `https://example.com/thanks/${n}` });

  it('never undoes a change of the form while the relay marks its versions published (FerretDB lost it)', async () => {
    const store = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    const scope = { orgId: `org_${randomUUID()}` };
    let current = form(scope.orgId);
    await store.insertForm(current);
    // A relay marking whatever it lists, as fast as it can, while the form changes 40 times under it.
    let changing = true;
    const relay = (async () => {
      let passes = 0;
      while (changing || passes === 0) {
        passes++;
        for (const f of await store.listUnpublishedForms(10_000)) {
          if (f.orgId === scope.orgId) await store.markFormPublished(f.id, f.version);
        }
      }
      return passes;
    })();
    const lost: number[] = [];
    for (let v = 2; v <= 41; v++) {
      const next = { ...current, settings: settingsOf(v), version: v };
      expect(await store.replaceForm(next, current.version)).toBe(true);
      current = next;
      await new Promise((r) => setTimeout(r, v % 3));
      const stored = await store.getForm(scope, current.id);
      if (stored?.version !== v || stored.settings.redirectUrl !== settingsOf(v).redirectUrl) lost.push(v);
    }
    changing = false;
    expect(await relay).toBeGreaterThan(1);
    expect(lost).toEqual([]);
    expect(await store.getForm(scope, current.id)).toEqual(current);
    // The relay catches up with the last version, and then has nothing left of this form.
    const pending = async () => (await store.listUnpublishedForms(10_000)).filter((f) => f.orgId === scope.orgId);
    for (const f of await pending()) await store.markFormPublished(f.id, f.version);
    expect(await pending()).toEqual([]);
    const mark = await db().collection<{ _id: string; version: number }>('form_published').findOne({ _id: current.id });
    expect(mark?.version).toBe(41);
  });

  it('lets exactly one of concurrent replacements from one version win (a conditional update is not atomic on FerretDB)', async () => {
    const store = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await store.insertForm(f);
    for (let round = 0; round < 5; round++) {
      const from = (await store.getForm(scope, f.id)) as Form;
      const rivals = Array.from({ length: 6 }, (_, i) => ({
        ...from,
        settings: settingsOf(100 * round + i),
        version: from.version + 1,
      }));
      const won = await Promise.all(rivals.map((r) => store.replaceForm(r, from.version)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.getForm(scope, f.id)).toEqual(rivals[won.indexOf(true)]);
    }
  });

  it('finishes a replacement whose request died after claiming its version, once the claim is abandoned', async () => {
    // Long enough that the checks of a young claim finish within it on a loaded machine (300 ms did not, in CI).
    const abandonedMs = 3_000;
    const store = await createMongoFormsStore(mongo(), {
      pageWidth: WIDTH,
      legacyPageWidth: WIDTH,
      claimAbandonedMs: abandonedMs,
    });
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await store.insertForm(f);
    await store.markFormPublished(f.id, 1);
    // The claim of version 2 is stored, and the request dies before it writes the form.
    const next = { ...f, settings: settingsOf(2), version: 2 };
    const { id: _id, ...claimed } = next;
    await db()
      .collection<{ _id: string; formId: string; version: number; claimedAt: number; form: unknown }>('form_outbox')
      .insertOne({ _id: `${f.id}:2`, formId: f.id, version: 2, claimedAt: Date.now(), form: claimed });
    const pending = async () => (await store.listUnpublishedForms(10_000)).filter((x) => x.orgId === scope.orgId);
    // While the claim is young, nobody else gets version 2 and the relay leaves it to its claimant.
    expect(await store.replaceForm({ ...f, name: 'Other', version: 2 }, 1)).toBe(false);
    expect(await pending()).toEqual([]);
    expect(await store.getForm(scope, f.id)).toEqual(f);
    await new Promise((r) => setTimeout(r, abandonedMs + 50));
    expect(await pending()).toEqual([next]);
    expect(await store.getForm(scope, f.id)).toEqual(next);
    expect(await store.replaceForm({ ...next, name: 'Third', version: 3 }, 2)).toBe(true);
  });

  it('publishes a version whose outbox record a dead process never wrote, at the next reconciliation (a restart)', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const store = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    const f = form(scope.orgId);
    const pending = async (s: FormsStore) =>
      (await s.listUnpublishedForms(10_000)).filter((x) => x.orgId === scope.orgId).map((x) => x.version);
    await store.insertForm(f);
    expect(await pending(store)).toEqual([1]);
    await store.markFormPublished(f.id, 1);
    // Version 2 written, and the process gone before its outbox record (a crash, or the store lost meanwhile).
    await db()
      .collection<{ _id: string; version: number }>('forms')
      .updateOne({ _id: f.id }, { $set: { version: 2, settings: settingsOf(2) } });
    expect(await pending(store)).toEqual([]);
    const restarted = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    expect(await pending(restarted)).toEqual([2]);
    await restarted.markFormPublished(f.id, 2);
    expect(await pending(restarted)).toEqual([]);
  });

  it('reads the marks a store before the outbox left on the form: a published form is not published again', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const [done, behind] = [form(scope.orgId), form(scope.orgId)];
    const legacy = (f: Form, publishedVersion: number) => {
      const { id, ...rest } = f;
      return { _id: id, ...rest, version: 3, publishedVersion, pending: publishedVersion < 3 };
    };
    await db()
      .collection<{ _id: string }>('forms')
      .insertMany([legacy(done, 3), legacy(behind, 2)]);
    const store = await createMongoFormsStore(mongo(), { pageWidth: WIDTH, legacyPageWidth: WIDTH });
    const listed = (await store.listUnpublishedForms(10_000)).filter((x) => x.orgId === scope.orgId);
    expect(listed).toEqual([{ ...behind, version: 3 }]);
    expect(await store.getForm(scope, done.id)).toEqual({ ...done, version: 3 });
  });
});
