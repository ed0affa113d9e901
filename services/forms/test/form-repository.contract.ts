import type { ContractIt } from '@formgate/kit/testing';
import { expect } from 'vitest';
import { SlugTakenError } from '../src/store/form-repository.ts';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { form, org, submission } from './forms-fixtures.ts';

/** The guarantees of `FormRepository` (see its JSDoc); purges are checked with the ports whose data they forget. */
export function formRepositoryContract(it: ContractIt, stores: () => FormsStores) {
  it('stores a form and returns it only within its organization', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    expect(await stores().forms.getForm(a, f.id)).toEqual(f);
    expect(await stores().forms.getFormBySlug(a, f.slug)).toEqual(f);
    expect(await stores().forms.getForm(org(), f.id)).toBeNull();
    expect(await stores().forms.getFormBySlug(org(), f.slug)).toBeNull();
  });

  it('refuses a slug already used in the organization, allows it in another', async () => {
    const a = org();
    const f = form(a.orgId, { slug: 'taken' });
    await stores().forms.insertForm(f);
    await expect(stores().forms.insertForm(form(a.orgId, { slug: 'taken' }))).rejects.toBeInstanceOf(SlugTakenError);
    await expect(stores().forms.insertForm(form(org().orgId, { slug: 'taken' }))).resolves.toBeUndefined();
  });

  it('lists an organization’s forms oldest first and nothing of others', async () => {
    const a = org();
    const first = form(a.orgId, { createdAt: '2026-01-01T00:00:00.000Z' });
    const second = form(a.orgId, { createdAt: '2026-01-02T00:00:00.000Z' });
    await stores().forms.insertForm(second);
    await stores().forms.insertForm(first);
    await stores().forms.insertForm(form(org().orgId));
    expect((await stores().forms.listForms(a)).map((f) => f.id)).toEqual([first.id, second.id]);
  });

  it('replaces a form only from the expected version', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    expect(await stores().forms.replaceForm({ ...f, name: 'New', version: 2 }, 1)).toBe(true);
    expect(await stores().forms.replaceForm({ ...f, name: 'Stale', version: 2 }, 1)).toBe(false);
    expect((await stores().forms.getForm(a, f.id))?.name).toBe('New');
  });

  it('keeps an outbox of unpublished form versions', async () => {
    const a = org();
    const f = form(a.orgId);
    await stores().forms.insertForm(f);
    const pending = async () => (await stores().forms.listUnpublishedForms(10_000)).filter((x) => x.orgId === a.orgId);
    expect((await pending()).map((x) => x.version)).toEqual([1]);
    await stores().forms.markFormPublished(f.id, 1);
    expect(await pending()).toEqual([]);
    await stores().forms.replaceForm({ ...f, version: 2 }, 1);
    expect((await pending()).map((x) => x.version)).toEqual([2]);
    await stores().forms.markFormPublished(f.id, 2);
    await stores().forms.markFormPublished(f.id, 1);
    expect(await pending()).toEqual([]);
  });

  it('purges an organization’s forms, submissions and counts, leaving a deletion per form in the outbox', async () => {
    const a = org();
    const b = org();
    const [f, g, kept] = [form(a.orgId), form(a.orgId, { version: 3 }), form(b.orgId)];
    for (const x of [f, g, kept]) {
      await stores().forms.insertForm(x);
      await stores().submissions.insertSubmissions([submission(x, '2026-01-01T00:00:00.000Z')]);
    }
    const deletions = async (orgId: string) =>
      (await stores().forms.listUnpublishedDeletions(10_000)).filter((d) => d.orgId === orgId);
    expect(await stores().forms.purgeOrganization(a)).toBe(2);
    expect(await stores().forms.purgeOrganization(a)).toBe(0);
    expect(await stores().forms.listForms(a)).toEqual([]);
    expect(await stores().forms.getForm(a, f.id)).toBeNull();
    expect(await stores().submissions.listSubmissions(a, f.id, { limit: 10 })).toEqual([]);
    expect(await stores().submissions.countSubmissions(a, g.id)).toBe(0);
    expect((await stores().forms.listUnpublishedForms(10_000)).filter((x) => x.orgId === a.orgId)).toEqual([]);
    expect(await deletions(a.orgId)).toEqual(
      expect.arrayContaining([
        { formId: f.id, orgId: a.orgId, key: f.key, version: 2 },
        { formId: g.id, orgId: a.orgId, key: g.key, version: 4 },
      ]),
    );
    expect(await deletions(a.orgId)).toHaveLength(2);
    await stores().forms.markDeletionPublished(f.id);
    expect((await deletions(a.orgId)).map((d) => d.formId)).toEqual([g.id]);
    expect(await stores().forms.getForm(b, kept.id)).toEqual(kept);
    expect(await stores().submissions.countSubmissions(b, kept.id)).toBe(1);
    expect(await deletions(b.orgId)).toEqual([]);
  });
}
