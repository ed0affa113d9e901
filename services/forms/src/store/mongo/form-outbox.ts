import type { Form } from '@formgate/contracts';
import { createVersionOutbox, findByIds, insertOnce, isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import type { FormRepository } from '../form-repository.ts';
import type { FormDeletion } from '../records.ts';
import { Collections, type DeletionDoc, type FormDoc, toForm } from './schema.ts';

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

/** A replacement's claim older than this whose form is still at the version before it: its request died. */
export const CLAIM_ABANDONED_MS = 30_000;

type PublishMethods = Pick<
  FormRepository,
  'listUnpublishedForms' | 'markFormPublished' | 'listUnpublishedDeletions' | 'markDeletionPublished'
>;

export interface MongoFormOutbox extends PublishMethods {
  /** Records that `version` of a new form was written: called after the form's insert succeeded. */
  recordWritten(formId: string, version: number): Promise<void>;
  /**
   * Claims `form.version` for a replacement: false when another writer holds it (FerretDB's conditional update is
   * not atomic, this insert is). The claimant then writes the form, or releases the claim when it did not.
   */
  claim(form: Form): Promise<boolean>;
  release(formId: string, version: number): Promise<void>;
}

/**
 * The outbox of form versions and deletions for MongoDB and FerretDB, with one writer per document (ADR 55;
 * docs/notifications.md, "A form's settings change and the outbox"). The form document is written only by the
 * requests that change it; the relay never writes it. FerretDB 1.24 applies an update by reading the document,
 * applying the operators in its own process and writing the whole document back by `_id`, so a relay's mark on the
 * form document could undo a concurrent `PATCH`. Instead (`createVersionOutbox` of `@formgate/store/mongo`):
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
 * before, as the claimant would have: while the claim stands no other writer can get past that version). On
 * MongoDB a conditional `updateOne({_id, version})` is atomic and would need no claim.
 *
 * A new form's record is inserted after the form; a process that dies in between leaves a version with no record,
 * and the relay's reconciliation (at its first pass, then every `RECONCILE_MS`) compares every form's version with
 * its mark and records what is missing. Deletions wait in `form_deletions` (`_id` = form id) until published.
 */
export function createMongoFormOutbox(
  db: MongoDb,
  options: { now?: () => number; reconcileMs?: number; claimAbandonedMs?: number } = {},
): MongoFormOutbox {
  const forms = db.collection<FormDoc>(Collections.forms);
  const deletions = db.collection<DeletionDoc>(Collections.formDeletions);
  const now = options.now ?? Date.now;
  const abandonedMs = options.claimAbandonedMs ?? CLAIM_ABANDONED_MS;
  const versions = createVersionOutbox(db, {
    outbox: Collections.formOutbox,
    published: Collections.formPublished,
    field: 'formId',
    index: 'form_version',
    now,
    reconcileMs: options.reconcileMs,
    // Every form whose version is newer than its published mark. A scan of `forms` (every form is compared).
    reconcile: async (marks) => {
      const behind = [];
      for await (const f of forms.find({}, { projection: { _id: 1, version: 1 } })) {
        if (f.version > (marks.get(f._id) ?? 0)) behind.push({ id: f._id, version: f.version });
      }
      return behind;
    },
  });
  const outbox = db.collection<OutboxDoc>(Collections.formOutbox);

  /**
   * The claim of the version after `doc`'s, if its request died: writes the claimed form as the claimant would have
   * (true), forgets a claim that can no longer apply, and leaves a young one to its claimant (false).
   */
  async function finishAbandoned(doc: FormDoc): Promise<boolean> {
    // Index `form_version` (formId, version); FerretDB 1.24 pushes down the equality on `formId` only.
    const claims = await outbox.find({ formId: doc._id, version: { $gt: doc.version } }).toArray();
    let wrote = false;
    for (const c of claims) {
      if (c.claimedAt !== undefined && now() - c.claimedAt < abandonedMs) continue;
      if (c.version === doc.version + 1 && c.form && !wrote) {
        try {
          // By `_id`; the version is checked on the document.
          const res = await forms.updateOne({ _id: doc._id, version: doc.version }, { $set: c.form });
          wrote = res.matchedCount === 1;
          if (wrote) continue;
        } catch (err) {
          // The claimed slug was taken meanwhile: the claimant would have been refused too.
          if (!isDuplicateKeyError(err)) throw err;
        }
      }
      await outbox.deleteOne({ _id: c._id }); // by `_id`
    }
    return wrote;
  }

  return {
    recordWritten: (formId, version) => versions.record([{ id: formId, version }]),
    async listUnpublishedForms(limit) {
      const entries = await versions.pending(limit);
      const ids = [...new Set(entries.map((e) => e.id))];
      if (ids.length === 0) return [];
      // `_id` lookups, as is the form read again after `finishAbandoned`.
      const docs = new Map((await findByIds(forms, ids)).map((d) => [d._id, d]));
      await versions.forget(ids.filter((id) => !docs.has(id)));
      const due: Form[] = [];
      for (const [id, doc] of docs) {
        if (entries.some((e) => e.id === id && e.version <= doc.version)) due.push(toForm(doc) as Form);
        else if (await finishAbandoned(doc)) due.push(toForm(await forms.findOne({ _id: id })) as Form);
      }
      return due.filter(Boolean);
    },
    claim: (form) => {
      const { id, ...rest } = form;
      const record = { _id: `${id}:${form.version}`, formId: id, version: form.version, claimedAt: now(), form: rest };
      return insertOnce(outbox.insertOne(record));
    },
    async release(formId, version) {
      await outbox.deleteOne({ _id: `${formId}:${version}` }); // by `_id`
    },
    markFormPublished: versions.markPublished,
    async listUnpublishedDeletions(limit) {
      if (limit <= 0) return [];
      // A scan of the (short) outbox.
      const docs = await deletions.find({}).limit(limit).toArray();
      return docs.map((d): FormDeletion => ({ formId: d._id, orgId: d.orgId, key: d.key, version: d.version }));
    },
    async markDeletionPublished(formId) {
      await deletions.deleteOne({ _id: formId }); // by `_id`
    },
  };
}
