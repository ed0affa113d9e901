import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { useTestMongo } from '@formgate/store/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FormsStore, SubmissionRecord } from '../src/store/forms-store.ts';
import { createMongoFormsStore, submissionDoc } from '../src/store/mongo-forms-store.ts';
import { runFormsStoreContract } from './forms-store.contract.ts';

const mongo = useTestMongo();
const db = () => {
  const { db } = mongo();
  if (!db) throw new Error('not connected');
  return db;
};

runFormsStoreContract({ name: 'mongo', create: () => createMongoFormsStore(mongo()) });

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

describe('mongo FormsStore: batches and counters', () => {
  let store: FormsStore;
  beforeAll(async () => {
    store = await createMongoFormsStore(mongo());
  });

  it('inserts a batch of 5,000 submissions in one call and counts them', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await store.insertForm(f);
    const batch = Array.from({ length: 5_000 }, (_, i) => submission(f, i));
    expect(await store.insertSubmissions(batch)).toBe(5_000);
    expect(await store.countSubmissions(scope, f.id)).toBe(5_000);
    const [newest] = await store.listSubmissions(scope, f.id, { limit: 1 });
    expect(newest).toEqual(batch.at(-1));
  });

  it('makes the count exact on redelivery after a crash between the insert and the $inc', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    const g = form(scope.orgId);
    await store.insertForm(f);
    await store.insertForm(g);
    expect(await store.insertSubmissions([0, 1, 2].map((i) => submission(f, i)))).toBe(3);
    const batch = [3, 4, 5, 6].map((i) => submission(f, i));
    await db().collection<ReturnType<typeof submissionDoc>>('submissions').insertMany(batch.map(submissionDoc));
    expect(await store.countSubmissions(scope, f.id)).toBe(3);
    const redelivered = [...batch, submission(f, 7), submission(g, 0)];
    expect(await store.insertSubmissions(redelivered)).toBe(2);
    expect(await store.countSubmissions(scope, f.id)).toBe(8);
    expect(await store.countSubmissions(scope, g.id)).toBe(1);
    expect(await store.insertSubmissions(redelivered)).toBe(0);
    expect(await store.countSubmissions(scope, f.id)).toBe(8);
    expect(await store.countSubmissions(scope, g.id)).toBe(1);
  });

  it('finishes a purge cut short after the deletions were written, announcing each form once', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await store.insertForm(f);
    await store.insertSubmissions([submission(f, 0)]);
    await db()
      .collection<{ _id: string; orgId: string; key: string; version: number }>('form_deletions')
      .insertOne({ _id: f.id, orgId: scope.orgId, key: f.key, version: 2 });
    expect(await store.purgeOrganization(scope)).toBe(1);
    expect(await store.getForm(scope, f.id)).toBeNull();
    expect(await store.countSubmissions(scope, f.id)).toBe(0);
    const pending = (await store.listUnpublishedDeletions(10_000)).filter((d) => d.orgId === scope.orgId);
    expect(pending).toEqual([{ formId: f.id, orgId: scope.orgId, key: f.key, version: 2 }]);
  });
});
