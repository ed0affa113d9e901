import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { type ContractSkip, describeContract } from '@formgate/kit/testing';
import { afterAll, beforeAll, expect } from 'vitest';
import { type FormsStore, SlugTakenError, type SubmissionRecord } from '../src/store/forms-store.ts';
import { submissionChangesContract } from './submission-changes.contract.ts';

export interface FormsStoreTarget {
  /** Tests this adapter does not run, each with the reason. */
  skip?: ContractSkip[];
  name: string;
  create: () => Promise<FormsStore>;
}

const org = () => ({ orgId: `org_${randomUUID()}` });

function form(orgId: string, overrides: Partial<Form> = {}): Form {
  const id = randomUUID();
  return {
    id,
    orgId,
    name: 'Contact',
    slug: `contact-${id.slice(0, 6)}`,
    key: id.replaceAll('-', '').slice(0, 12),
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    version: 1,
    ...overrides,
  };
}

function submission(f: Form, createdAt: string, overrides: Partial<SubmissionRecord> = {}): SubmissionRecord {
  return {
    id: randomUUID(),
    formId: f.id,
    orgId: f.orgId,
    createdAt,
    fields: [{ name: 'email', value: 'a@example.com' }],
    files: [],
    spam: { isSpam: false, reasons: [] },
    held: false,
    ...overrides,
  };
}

/** The guarantees of `FormsStore` (see its JSDoc), checked against one adapter. */
export function runFormsStoreContract(target: FormsStoreTarget) {
  describeContract(`FormsStore contract: ${target.name}`, target.skip, (it) => {
    let store: FormsStore;
    beforeAll(async () => {
      store = await target.create();
    });
    afterAll(async () => {
      await store.close();
    });

    it('stores a form and returns it only within its organization', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      expect(await store.getForm(a, f.id)).toEqual(f);
      expect(await store.getFormBySlug(a, f.slug)).toEqual(f);
      expect(await store.getForm(org(), f.id)).toBeNull();
      expect(await store.getFormBySlug(org(), f.slug)).toBeNull();
    });

    it('refuses a slug already used in the organization, allows it in another', async () => {
      const a = org();
      const f = form(a.orgId, { slug: 'taken' });
      await store.insertForm(f);
      await expect(store.insertForm(form(a.orgId, { slug: 'taken' }))).rejects.toBeInstanceOf(SlugTakenError);
      await expect(store.insertForm(form(org().orgId, { slug: 'taken' }))).resolves.toBeUndefined();
    });

    it('lists an organization’s forms oldest first and nothing of others', async () => {
      const a = org();
      const first = form(a.orgId, { createdAt: '2026-01-01T00:00:00.000Z' });
      const second = form(a.orgId, { createdAt: '2026-01-02T00:00:00.000Z' });
      await store.insertForm(second);
      await store.insertForm(first);
      await store.insertForm(form(org().orgId));
      expect((await store.listForms(a)).map((f) => f.id)).toEqual([first.id, second.id]);
    });

    it('replaces a form only from the expected version', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      expect(await store.replaceForm({ ...f, name: 'New', version: 2 }, 1)).toBe(true);
      expect(await store.replaceForm({ ...f, name: 'Stale', version: 2 }, 1)).toBe(false);
      expect((await store.getForm(a, f.id))?.name).toBe('New');
    });

    it('keeps an outbox of unpublished form versions', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const pending = async () => (await store.listUnpublishedForms(10_000)).filter((x) => x.orgId === a.orgId);
      expect((await pending()).map((x) => x.version)).toEqual([1]);
      await store.markFormPublished(f.id, 1);
      expect(await pending()).toEqual([]);
      await store.replaceForm({ ...f, version: 2 }, 1);
      expect((await pending()).map((x) => x.version)).toEqual([2]);
      await store.markFormPublished(f.id, 2);
      await store.markFormPublished(f.id, 1);
      expect(await pending()).toEqual([]);
    });

    it('inserts submissions idempotently and keeps the per-form count exact', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const batch = [1, 2, 3].map((i) => submission(f, `2026-01-01T00:00:0${i}.000Z`));
      expect(await store.insertSubmissions(batch.slice(0, 2))).toBe(2);
      const extra = submission(f, '2026-01-01T00:00:09.000Z');
      expect(await store.insertSubmissions([...batch, extra, batch[0] as SubmissionRecord])).toBe(2);
      expect(await store.insertSubmissions(batch)).toBe(0);
      expect(await store.countSubmissions(a, f.id)).toBe(4);
      expect(await store.countSubmissions(org(), f.id)).toBe(0);
    });

    it('round-trips hostile field names and values in order', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const fields = [
        { name: 'a.b', value: '$x' },
        { name: '$where', value: '1 == 1' },
        { name: '__proto__', value: '{"isAdmin":true}' },
        { name: 'email[$ne]', value: '' },
        { name: '_id', value: 'x' },
        { name: 'a.b', value: 'again' },
        { name: 'unicode', value: 'é 🙂 \u202e' },
      ];
      const s = submission(f, new Date().toISOString(), { fields });
      await store.insertSubmissions([s]);
      const got = await store.getSubmission(a, f.id, s.id);
      expect(got?.fields).toEqual(fields);
      expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    });

    it('pages newest first with a keyset cursor, ties broken by id, scoped by organization', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const same = '2026-02-01T00:00:00.000Z';
      const records = [
        ...Array.from({ length: 5 }, () => submission(f, same)),
        submission(f, '2026-03-01T00:00:00.000Z'),
        submission(f, '2026-01-01T00:00:00.000Z'),
      ];
      await store.insertSubmissions(records);
      const expected = [...records]
        .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? 1 : -1) : x.createdAt < y.createdAt ? 1 : -1))
        .map((r) => r.id);
      const seen: string[] = [];
      let after: { seq: number } | undefined;
      for (let i = 0; i < 4; i++) {
        const page = await store.listSubmissions(a, f.id, { limit: 2, ...(after ? { after } : {}) });
        seen.push(...page.map((r) => r.id));
        const last = page.at(-1);
        after = last ? { seq: last.seq } : undefined;
      }
      expect(seen).toEqual(expected);
      expect(await store.listSubmissions(org(), f.id, { limit: 10 })).toEqual([]);
      expect(await store.getSubmission(org(), f.id, records[0]?.id ?? '')).toBeNull();
    });

    it('purges an organization’s forms, submissions and counts, leaving a deletion per form in the outbox', async () => {
      const a = org();
      const b = org();
      const [f, g, kept] = [form(a.orgId), form(a.orgId, { version: 3 }), form(b.orgId)];
      for (const x of [f, g, kept]) {
        await store.insertForm(x);
        await store.insertSubmissions([submission(x, '2026-01-01T00:00:00.000Z')]);
      }
      const deletions = async (orgId: string) =>
        (await store.listUnpublishedDeletions(10_000)).filter((d) => d.orgId === orgId);
      expect(await store.purgeOrganization(a)).toBe(2);
      expect(await store.purgeOrganization(a)).toBe(0);
      expect(await store.listForms(a)).toEqual([]);
      expect(await store.getForm(a, f.id)).toBeNull();
      expect(await store.listSubmissions(a, f.id, { limit: 10 })).toEqual([]);
      expect(await store.countSubmissions(a, g.id)).toBe(0);
      expect((await store.listUnpublishedForms(10_000)).filter((x) => x.orgId === a.orgId)).toEqual([]);
      expect(await deletions(a.orgId)).toEqual(
        expect.arrayContaining([
          { formId: f.id, orgId: a.orgId, key: f.key, version: 2 },
          { formId: g.id, orgId: a.orgId, key: g.key, version: 4 },
        ]),
      );
      expect(await deletions(a.orgId)).toHaveLength(2);
      await store.markDeletionPublished(f.id);
      expect((await deletions(a.orgId)).map((d) => d.formId)).toEqual([g.id]);
      expect(await store.getForm(b, kept.id)).toEqual(kept);
      expect(await store.countSubmissions(b, kept.id)).toBe(1);
      expect(await deletions(b.orgId)).toEqual([]);
    });

    it('returns a stored submission with every attribute', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const s = submission(f, '2026-04-01T10:00:00.123Z', {
        spam: { isSpam: true, reasons: ['honeypot'] },
        held: true,
        files: [{ field: 'cv', blobKey: 'k1', filename: 'cv.pdf', contentType: 'application/pdf', size: 10 }],
      });
      await store.insertSubmissions([s]);
      expect(await store.getSubmission(a, f.id, s.id)).toEqual({ ...s, seq: 0 });
    });

    it('lists a later call’s submissions first, even when they are older by createdAt', async () => {
      const a = org();
      const [f, g] = [form(a.orgId), form(a.orgId)];
      await store.insertForm(f);
      await store.insertForm(g);
      const early = [submission(f, '2026-05-01T00:00:02.000Z'), submission(g, '2026-05-01T00:00:00.000Z')];
      const late = [submission(f, '2026-05-01T00:00:01.000Z'), submission(f, '2026-05-01T00:00:00.000Z')];
      await store.insertSubmissions(early);
      await store.insertSubmissions([...late, ...early]);
      const list = await store.listSubmissions(a, f.id, { limit: 10 });
      expect(list.map((r) => [r.id, r.seq])).toEqual([
        [late[0]?.id, 2],
        [late[1]?.id, 1],
        [early[0]?.id, 0],
      ]);
      expect((await store.listSubmissions(a, g.id, { limit: 10 })).map((r) => [r.id, r.seq])).toEqual([
        [early[1]?.id, 0],
      ]);
    });

    it('pages every stored submission once, in order, while new ones keep arriving', async () => {
      const a = org();
      const f = form(a.orgId);
      await store.insertForm(f);
      const at = (i: number) => new Date(Date.UTC(2026, 5, 1) + i * 1000).toISOString();
      const stored = Array.from({ length: 300 }, (_, i) => submission(f, at(i)));
      for (let i = 0; i < 300; i += 100) await store.insertSubmissions(stored.slice(i, i + 100));
      const seen: string[] = [];
      let after: { seq: number } | undefined;
      for (let n = 0; ; n++) {
        const page = await store.listSubmissions(a, f.id, { limit: 7, ...(after ? { after } : {}) });
        await store.insertSubmissions([submission(f, at(n))]);
        seen.push(...page.map((r) => r.id));
        const last = page.at(-1);
        if (!last) break;
        after = { seq: last.seq };
      }
      expect(seen).toEqual(stored.map((s) => s.id).reverse());
      const newest = await store.listSubmissions(a, f.id, { limit: 100 });
      expect(newest.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => 300 + 43 - i));
      expect(await store.countSubmissions(a, f.id)).toBe(300 + 44);
    });

    submissionChangesContract(it, () => store);
  });
}
