import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { useTestMongo } from '@formgate/store/testing';
import { describe, expect, it } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { form } from './forms-fixtures.ts';
import { openMongoFormsStores } from './mongo-stores.ts';

const mongo = useTestMongo();
const db = () => {
  const { db } = mongo();
  if (!db) throw new Error('not connected');
  return db;
};

describe('mongo form outbox: one writer per document', () => {
  const settingsOf = (n: number) => ({ ...DEFAULT_FORM_SETTINGS, redirectUrl: `https://example.com/thanks/${n}` });

  it('never undoes a change of the form while the relay marks its versions published (FerretDB lost it)', async () => {
    const stores = await openMongoFormsStores(mongo());
    const scope = { orgId: `org_${randomUUID()}` };
    let current = form(scope.orgId);
    await stores.forms.insertForm(current);
    // A relay marking whatever it lists, as fast as it can, while the form changes 40 times under it.
    let changing = true;
    const relay = (async () => {
      let passes = 0;
      while (changing || passes === 0) {
        passes++;
        for (const f of await stores.forms.listUnpublishedForms(10_000)) {
          if (f.orgId === scope.orgId) await stores.forms.markFormPublished(f.id, f.version);
        }
      }
      return passes;
    })();
    const lost: number[] = [];
    for (let v = 2; v <= 41; v++) {
      const next = { ...current, settings: settingsOf(v), version: v };
      expect(await stores.forms.replaceForm(next, current.version)).toBe(true);
      current = next;
      await new Promise((r) => setTimeout(r, v % 3));
      const stored = await stores.forms.getForm(scope, current.id);
      if (stored?.version !== v || stored.settings.redirectUrl !== settingsOf(v).redirectUrl) lost.push(v);
    }
    changing = false;
    expect(await relay).toBeGreaterThan(1);
    expect(lost).toEqual([]);
    expect(await stores.forms.getForm(scope, current.id)).toEqual(current);
    // The relay catches up with the last version, and then has nothing left of this form.
    const pending = async () =>
      (await stores.forms.listUnpublishedForms(10_000)).filter((f) => f.orgId === scope.orgId);
    for (const f of await pending()) await stores.forms.markFormPublished(f.id, f.version);
    expect(await pending()).toEqual([]);
    const mark = await db().collection<{ _id: string; version: number }>('form_published').findOne({ _id: current.id });
    expect(mark?.version).toBe(41);
  });

  it('lets exactly one of concurrent replacements from one version win (a conditional update is not atomic on FerretDB)', async () => {
    const stores = await openMongoFormsStores(mongo());
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await stores.forms.insertForm(f);
    for (let round = 0; round < 5; round++) {
      const from = (await stores.forms.getForm(scope, f.id)) as Form;
      const rivals = Array.from({ length: 6 }, (_, i) => ({
        ...from,
        settings: settingsOf(100 * round + i),
        version: from.version + 1,
      }));
      const won = await Promise.all(rivals.map((r) => stores.forms.replaceForm(r, from.version)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await stores.forms.getForm(scope, f.id)).toEqual(rivals[won.indexOf(true)]);
    }
  });

  it('finishes a replacement whose request died after claiming its version, once the claim is abandoned', async () => {
    // Long enough that the checks of a young claim finish within it on a loaded machine (300 ms did not, in CI).
    const abandonedMs = 3_000;
    const stores = await openMongoFormsStores(mongo(), { claimAbandonedMs: abandonedMs });
    const scope = { orgId: `org_${randomUUID()}` };
    const f = form(scope.orgId);
    await stores.forms.insertForm(f);
    await stores.forms.markFormPublished(f.id, 1);
    // The claim of version 2 is stored, and the request dies before it writes the form.
    const next = { ...f, settings: settingsOf(2), version: 2 };
    const { id: _id, ...claimed } = next;
    await db()
      .collection<{ _id: string; formId: string; version: number; claimedAt: number; form: unknown }>('form_outbox')
      .insertOne({ _id: `${f.id}:2`, formId: f.id, version: 2, claimedAt: Date.now(), form: claimed });
    const pending = async () =>
      (await stores.forms.listUnpublishedForms(10_000)).filter((x) => x.orgId === scope.orgId);
    // While the claim is young, nobody else gets version 2 and the relay leaves it to its claimant.
    expect(await stores.forms.replaceForm({ ...f, name: 'Other', version: 2 }, 1)).toBe(false);
    expect(await pending()).toEqual([]);
    expect(await stores.forms.getForm(scope, f.id)).toEqual(f);
    await new Promise((r) => setTimeout(r, abandonedMs + 50));
    expect(await pending()).toEqual([next]);
    expect(await stores.forms.getForm(scope, f.id)).toEqual(next);
    expect(await stores.forms.replaceForm({ ...next, name: 'Third', version: 3 }, 2)).toBe(true);
  });

  it('publishes a version whose outbox record a dead process never wrote, at the next reconciliation (a restart)', async () => {
    const scope = { orgId: `org_${randomUUID()}` };
    const stores = await openMongoFormsStores(mongo());
    const f = form(scope.orgId);
    const pending = async (s: FormsStores) =>
      (await s.forms.listUnpublishedForms(10_000)).filter((x) => x.orgId === scope.orgId).map((x) => x.version);
    await stores.forms.insertForm(f);
    expect(await pending(stores)).toEqual([1]);
    await stores.forms.markFormPublished(f.id, 1);
    // Version 2 written, and the process gone before its outbox record (a crash, or the store lost meanwhile).
    await db()
      .collection<{ _id: string; version: number }>('forms')
      .updateOne({ _id: f.id }, { $set: { version: 2, settings: settingsOf(2) } });
    expect(await pending(stores)).toEqual([]);
    const restarted = await openMongoFormsStores(mongo());
    expect(await pending(restarted)).toEqual([2]);
    await restarted.forms.markFormPublished(f.id, 2);
    expect(await pending(restarted)).toEqual([]);
  });
});
