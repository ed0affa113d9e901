import { type Form, withDefaultSettings } from '@formgate/contracts';
import { createVersionOutbox, findByIds, insertOnce, isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';

/**
 * A form version written (or claimed) and not yet confirmed published; `_id` is `${formId}:${version}`. A
 * replacement's claim carries the form it writes (`form`) and when it was taken (`claimedAt`, ms).
 */
interface OutboxDoc {
  _id: string;
  formId: string;
  version: number;
  claimedAt?: number;
  form?: Omit<Form, 'id'>;
}

/** A stored form as the outbox reads it; `publishedVersion` is the mark of stores before this one (read, never written). */
interface StoredForm extends Omit<Form, 'id'> {
  _id: string;
  publishedVersion?: number;
}

/** The projection of every form read: without the outbox marks stores before this one kept on the form. */
export const FORM_PROJECTION = { publishedVersion: 0, pending: 0 } as const;

/** A form read with `FORM_PROJECTION`, or null when there is none or it belongs to another organization. */
export const toForm = (doc: Omit<StoredForm, 'publishedVersion'> | null, orgId?: string): Form | null => {
  if (!doc || (orgId !== undefined && doc.orgId !== orgId)) return null;
  const { _id, ...rest } = doc;
  return withDefaultSettings({ id: _id, ...rest });
};

/** A replacement's claim older than this whose form is still at the version before it: its request died. */
export const CLAIM_ABANDONED_MS = 30_000;

type OutboxMethods = {
  /** Records that `version` of a new form was written: called after the form's insert succeeded. */
  recordWritten(formId: string, version: number): Promise<void>;
  /**
   * Claims `form.version` for a replacement: false when another writer holds it (FerretDB's conditional update is
   * not atomic, this insert is). The claimant then writes the form, or releases the claim when it did not.
   */
  claim(form: Form): Promise<boolean>;
  release(formId: string, version: number): Promise<void>;
  listUnpublishedForms(limit: number): Promise<Form[]>;
  markFormPublished(formId: string, version: number): Promise<void>;
};

/**
 * The outbox of form versions for MongoDB and FerretDB, with one writer per document (docs/notifications.md, "A
 * form's settings change and the outbox"). The form document is written only by the requests that change it; the
 * relay never writes it. FerretDB 1.24 applies an update by reading the document, applying the operators in its
 * own process and writing the whole document back by `_id`, so a relay's mark on the form document could undo a
 * concurrent `PATCH` (it did: the notifications kill test lost one). Instead:
 *
 * - `form_outbox` — one record per version written (`${formId}:${version}`), inserted after the form's write and
 *   deleted by the relay once a version at least as new is published. Inserts and deletes only.
 * - `form_published` — the newest version the relay confirmed, per form; written by relays only (a lost mark there
 *   only republishes a snapshot, which the views ignore by version).
 *
 * A replacement first claims its version by inserting that record (with the form it writes), then writes the form
 * from the version before: of two concurrent `PATCH`es from one version only one gets the claim, so the other is
 * told it lost (409 after its retries) instead of both answering 200 and one vanishing. A claim whose request died
 * before writing is finished by the relay after `CLAIM_ABANDONED_MS` (it writes the claimed form from the version
 * before, as the claimant would have: while the claim stands no other writer can get past that version).
 *
 * A new form's record is inserted after the form; a process that dies in between leaves a version with no record,
 * and the relay's reconciliation (at its first pass, then every `RECONCILE_MS`) compares every form's version with
 * its mark and records what is missing.
 */
export function createMongoFormOutbox(
  db: MongoDb,
  options: { now?: () => number; reconcileMs?: number; claimAbandonedMs?: number } = {},
): OutboxMethods & { createIndexes(): Promise<unknown> } {
  const forms = db.collection<StoredForm>('forms');
  const now = options.now ?? Date.now;
  const abandonedMs = options.claimAbandonedMs ?? CLAIM_ABANDONED_MS;
  const versions = createVersionOutbox(db, {
    outbox: 'form_outbox',
    published: 'form_published',
    field: 'formId',
    index: 'form_version',
    now,
    reconcileMs: options.reconcileMs,
    // Every form whose version is newer than its published mark (or the mark an older store left on it).
    reconcile: async (marks) => {
      const behind = [];
      for await (const f of forms.find({}, { projection: { _id: 1, version: 1, publishedVersion: 1 } })) {
        const mark = Math.max(marks.get(f._id) ?? 0, f.publishedVersion ?? 0);
        if (f.version > mark) behind.push({ id: f._id, version: f.version });
      }
      return behind;
    },
  });
  const outbox = db.collection<OutboxDoc>('form_outbox');

  /**
   * The claim of the version after `doc`'s, if its request died: writes the claimed form as the claimant would have
   * (true), forgets a claim that can no longer apply, and leaves a young one to its claimant (false).
   */
  async function finishAbandoned(doc: StoredForm): Promise<boolean> {
    const claims = await outbox.find({ formId: doc._id, version: { $gt: doc.version } }).toArray();
    let wrote = false;
    for (const c of claims) {
      if (c.claimedAt !== undefined && now() - c.claimedAt < abandonedMs) continue;
      if (c.version === doc.version + 1 && c.form && !wrote) {
        try {
          const res = await forms.updateOne({ _id: doc._id, version: doc.version }, { $set: c.form });
          wrote = res.matchedCount === 1;
          if (wrote) continue;
        } catch (err) {
          // The claimed slug was taken meanwhile: the claimant would have been refused too.
          if (!isDuplicateKeyError(err)) throw err;
        }
      }
      await outbox.deleteOne({ _id: c._id });
    }
    return wrote;
  }

  return {
    createIndexes: versions.createIndex,
    recordWritten: (formId, version) => versions.record([{ id: formId, version }]),
    async listUnpublishedForms(limit) {
      const entries = await versions.pending(limit);
      const ids = [...new Set(entries.map((e) => e.id))];
      if (ids.length === 0) return [];
      const docs = new Map((await findByIds(forms, ids, { projection: FORM_PROJECTION })).map((d) => [d._id, d]));
      await versions.forget(ids.filter((id) => !docs.has(id)));
      const due: Form[] = [];
      for (const [id, doc] of docs) {
        if (entries.some((e) => e.id === id && e.version <= doc.version)) due.push(toForm(doc) as Form);
        else if (await finishAbandoned(doc))
          due.push(toForm(await forms.findOne({ _id: id }, { projection: FORM_PROJECTION })) as Form);
      }
      return due.filter(Boolean);
    },
    claim: (form) => {
      const { id, ...rest } = form;
      const record = { _id: `${id}:${form.version}`, formId: id, version: form.version, claimedAt: now(), form: rest };
      return insertOnce(outbox.insertOne(record));
    },
    async release(formId, version) {
      await outbox.deleteOne({ _id: `${formId}:${version}` });
    },
    markFormPublished: versions.markPublished,
  };
}
