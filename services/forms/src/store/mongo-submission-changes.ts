import { AppError } from '@formgate/kit';
import { ignoreDuplicates, isDuplicateKeyError, type MongoDb } from '@formgate/store/mongo';
import { BLOCKED_COUNTS } from './mongo-blocked-counts.ts';
import { FIELD_NAMES } from './mongo-field-names.ts';
import {
  COUNTED_PROJECTION,
  COUNTERS,
  type CounterDoc,
  insertIncrements,
  SUBMISSIONS,
  type SubmissionDoc,
} from './mongo-submissions.ts';
import {
  type CountedChange,
  changeIncrements,
  changes,
  dayOf,
  type StoredCounts,
  type StoredDailyCount,
  type SubmissionChange,
  type SubmissionChangeMethods,
} from './submission-changes.ts';
import type { SubmissionRecord } from './submission-record.ts';

export const SUBMISSION_CHANGES = 'submission_changes';
/** Per form: what the changes counted so far add to `form_counters` (which only the projection writes). */
export const CHANGE_COUNTERS = 'form_change_counters';

/**
 * A change in the outbox. Its `_id` claims the submission's next version (`<submissionId>#<v>`): inserting it is
 * atomic on FerretDB too (a duplicate `_id` fails), so of two changes racing for one submission only one gets
 * the version, and only it writes the submission. `applied` once the submission has its new state.
 */
interface ChangeDoc extends Omit<SubmissionChange, 'id'> {
  _id: string;
  eventId: string;
  /** The version the submission had when the change was claimed; the change gives it `v + 1`. */
  v: number;
  applied: boolean;
  /** Ingest's verdict on the submission (kept on it when a mark overrides it). */
  receivedSpam: boolean;
  /** Milliseconds since the epoch when claimed: the outbox is published in this order. */
  at: number;
}

interface ChangeCounterDoc {
  _id: string;
  orgId: string;
  count: number;
  spam: number;
  /** Releases counted (negative: held submissions that left the held count). */
  held?: number;
  /** `createdAt` of the newest submission released. */
  lastAt?: string;
  days: Record<string, { total?: number; spam?: number }>;
  /** The ids of the changes counted last, so a redelivered batch is not counted twice. */
  recent: string[];
}

interface FormDoc {
  _id: string;
  orgId: string;
  key: string;
  version: number;
}

/** A change that finds the next version claimed waits for the claimant to apply it: 7 reads over about 1.3 s. */
const ATTEMPTS = 7;
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
/** A claimed change not applied after this long was abandoned (its request died); the relay applies it. */
const ABANDONED_MS = 30_000;
/** How many counted change ids a form's change counter remembers (more than a consumer batch holds). */
const RECENT = 2_000;

/**
 * Submission changes of the Mongo `FormsStore` without transactions and without conditional updates, which
 * FerretDB 1.24 runs as a read then a write (ADR 0020). A change claims the submission's next version by
 * inserting its outbox document (atomic: a duplicate `_id` fails), then writes the submission's new state; only
 * the claimant writes it, so concurrent changes of one submission apply one at a time. A claim whose request died
 * is applied by the relay later. The counters of changes live in `form_change_counters`, written only by the
 * consumer of `forms.submission` (one writer per form, like `form_counters` and the projection).
 */
export function createMongoSubmissionChanges(db: MongoDb): SubmissionChangeMethods & {
  backfillCounters(): Promise<number>;
} {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);
  const changeCounters = db.collection<ChangeCounterDoc>(CHANGE_COUNTERS);
  const outbox = db.collection<ChangeDoc>(SUBMISSION_CHANGES);
  const forms = db.collection<FormDoc>('forms');
  const deletions = db.collection<{ _id: string; orgId: string; key: string; version: number }>('form_deletions');

  /** Gives the submission the change's state, if it still has the version the change claimed after. */
  async function apply(change: ChangeDoc): Promise<void> {
    const state =
      change.action === 'delete'
        ? { deleted: true as const, fields: [], files: [] }
        : change.action === 'release'
          ? { held: false, releasedAt: change.occurredAt }
          : {
              'spam.isSpam': change.action === 'spam',
              receivedSpam: change.receivedSpam,
              // Released from spam (issue 14): once only.
              ...(change.submission ? { spamReleased: true as const } : {}),
            };
    const version = change.v === 0 ? { $exists: false } : change.v;
    // A deleted submission keeps nothing of what the submitter sent: its origin and referer go with its fields.
    const gone: Record<string, true> =
      change.action === 'delete'
        ? { origin: true, referer: true, meta: true }
        : change.action === 'release' || change.submission
          ? { meta: true }
          : {};
    const erase = Object.keys(gone).length > 0 ? { $unset: gone } : {};
    await submissions.updateOne(
      { _id: change.submissionId, v: version },
      { $set: { ...state, v: change.v + 1 }, ...erase },
    );
    await outbox.updateOne({ _id: change._id }, { $set: { applied: true } });
  }

  const toChange = (d: ChangeDoc): SubmissionChange => ({
    id: d.eventId,
    formId: d.formId,
    orgId: d.orgId,
    submissionId: d.submissionId,
    action: d.action,
    wasSpam: d.wasSpam,
    receivedAt: d.receivedAt,
    occurredAt: d.occurredAt,
    blobKeys: d.blobKeys,
    ...(d.submission ? { submission: d.submission } : {}),
  });

  return {
    async changeSubmission(scope, formId, submissionId, action, meta) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) await pause(attempt);
        const release = action === 'release';
        const whole = release || action === 'not-spam';
        const doc = await submissions.findOne(
          { _id: submissionId },
          { projection: whole ? { buckets: 0, terms: 0 } : { fields: 0 } },
        );
        if (!doc || doc.deleted || doc.orgId !== scope.orgId || doc.formId !== formId) return 'not_found';
        const wasSpam = doc.spam.isSpam;
        const effect = changes(action, wasSpam, doc.held === true);
        if (effect !== true) return effect;
        const v = doc.v ?? 0;
        let submission: SubmissionRecord | undefined;
        if (release) {
          const { _id, fields, files, spam, meta, origin, referer, createdAt } = doc;
          submission = { id: _id, formId, orgId: scope.orgId, createdAt, fields, files, spam, held: false };
          if (meta !== undefined) submission.meta = meta;
          if (origin !== undefined) submission.origin = origin;
          if (referer !== undefined) submission.referer = referer;
        } else if (action === 'not-spam' && (doc.receivedSpam ?? wasSpam) && !doc.spamReleased) {
          // Released from spam (issue 14): the first not-spam mark of a submission ingest judged spam.
          const { _id, fields, files, spam, meta, origin, referer, createdAt } = doc;
          const verdict = { isSpam: false, reasons: spam.reasons };
          submission = { id: _id, formId, orgId: scope.orgId, createdAt, fields, files, spam: verdict, held: false };
          if (meta !== undefined) submission.meta = meta;
          if (origin !== undefined) submission.origin = origin;
          if (referer !== undefined) submission.referer = referer;
        }
        const change: ChangeDoc = {
          _id: `${submissionId}#${v + 1}`,
          eventId: meta.id,
          v,
          applied: false,
          formId,
          orgId: scope.orgId,
          submissionId,
          action,
          wasSpam,
          receivedSpam: doc.receivedSpam ?? wasSpam,
          receivedAt: doc.createdAt,
          occurredAt: meta.occurredAt,
          blobKeys: action === 'delete' ? doc.files.map((f) => f.blobKey) : [],
          ...(submission ? { submission } : {}),
          at: Date.now(),
        };
        try {
          await outbox.insertOne(change);
        } catch (err) {
          if (isDuplicateKeyError(err)) continue; // another change took this version: read it again
          throw err;
        }
        await apply(change);
        return 'changed';
      }
      throw new AppError('FORMS_CONCURRENT_UPDATE', 'The submission changed while updating; try again');
    },
    async listUnpublishedSubmissionChanges(limit) {
      if (limit <= 0) return [];
      const docs = await outbox.find({}).sort({ at: 1, _id: 1 }).limit(limit).toArray();
      const ready: SubmissionChange[] = [];
      for (const doc of docs) {
        if (!doc.applied) {
          if (Date.now() - doc.at < ABANDONED_MS) break; // its request is still applying it; keep the order
          await apply(doc);
        }
        ready.push(toChange(doc));
      }
      return ready;
    },
    async markSubmissionChangePublished(changeId) {
      await outbox.deleteMany({ eventId: changeId });
    },
    async countSubmissionChanges(list) {
      const byForm = new Map<string, CountedChange[]>();
      for (const c of list) byForm.set(c.formId, [...(byForm.get(c.formId) ?? []), c]);
      for (const [formId, batch] of byForm) {
        const current = await changeCounters.findOne({ _id: formId }, { projection: { recent: 1 } });
        const seen = new Set(current?.recent ?? []);
        const fresh: CountedChange[] = [];
        for (const c of batch) {
          if (seen.has(c.id)) continue;
          seen.add(c.id);
          fresh.push(c);
        }
        if (fresh.length === 0) continue;
        const $inc: Record<string, number> = {};
        const add = (path: string, n: number) => {
          if (n !== 0) $inc[path] = ($inc[path] ?? 0) + n;
        };
        let lastAt = '';
        for (const c of fresh) {
          const { total, spam, held } = changeIncrements(c);
          const day = dayOf(c.receivedAt);
          add('count', total);
          add('spam', spam);
          add('held', held);
          add(`days.${day}.total`, total);
          add(`days.${day}.spam`, spam);
          if (c.action === 'release' && c.receivedAt > lastAt) lastAt = c.receivedAt;
        }
        await changeCounters.updateOne(
          { _id: formId },
          {
            $inc,
            ...(lastAt ? { $max: { lastAt } } : {}),
            $push: { recent: { $each: fresh.map((c) => c.id), $slice: -RECENT } },
            $setOnInsert: { orgId: fresh[0]?.orgId as string },
          },
          { upsert: true },
        );
      }
    },
    async getFormCounts(scope, formIds) {
      const result = new Map<string, StoredCounts>();
      if (formIds.length === 0) return result;
      // One `_id` lookup per form and document: FerretDB 1.24 uses an index for `_id` equality only.
      const byId = async <T>(find: (id: string) => Promise<T | null>): Promise<T[]> =>
        (await Promise.all(formIds.map(find))).filter((d): d is Awaited<T> & {} => d !== null) as T[];
      const [docs, deltas] = await Promise.all([
        byId((id) =>
          counters.findOne({ _id: id }, { projection: { orgId: 1, count: 1, spam: 1, lastAt: 1, held: 1 } }),
        ),
        byId((id) =>
          changeCounters.findOne({ _id: id }, { projection: { orgId: 1, count: 1, spam: 1, held: 1, lastAt: 1 } }),
        ),
      ]);
      const deltaOf = new Map(deltas.filter((d) => d.orgId === scope.orgId).map((d) => [d._id, d]));
      for (const d of docs) {
        if (d.orgId !== scope.orgId) continue;
        const delta = deltaOf.get(d._id);
        const lastAt = [d.lastAt, delta?.lastAt].filter((t): t is string => !!t).sort();
        result.set(d._id, {
          submissionCount: d.count + (delta?.count ?? 0),
          spamCount: (d.spam ?? 0) + (delta?.spam ?? 0),
          lastSubmissionAt: lastAt.at(-1) ?? null,
          heldCount: (d.held ?? 0) + (delta?.held ?? 0),
        });
      }
      return result;
    },
    async getDailyCounts(scope, formId, fromDay, toDay) {
      const [counter, delta] = await Promise.all([
        counters.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } }),
        changeCounters.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } }),
      ]);
      if (!counter || counter.orgId !== scope.orgId) return [];
      const days = new Map<string, StoredDailyCount>();
      for (const source of [counter.days, delta?.orgId === scope.orgId ? delta.days : undefined]) {
        for (const [day, c] of Object.entries(source ?? {})) {
          if (day < fromDay || day > toDay) continue;
          const sum = days.get(day) ?? { day, total: 0, spam: 0 };
          days.set(day, { day, total: sum.total + (c.total ?? 0), spam: sum.spam + (c.spam ?? 0) });
        }
      }
      return [...days.values()].filter((d) => d.total > 0).sort((a, b) => (a.day < b.day ? -1 : 1));
    },
    async deleteForm(scope, formId) {
      const form = await forms.findOne({ _id: formId }, { projection: { orgId: 1, key: 1, version: 1 } });
      if (!form || form.orgId !== scope.orgId) return false;
      await deletions
        .insertMany([{ _id: formId, orgId: form.orgId, key: form.key, version: form.version + 1 }], { ordered: false })
        .catch(ignoreDuplicates);
      // The relay may complete the deletion (and delete the form) as soon as it is written: it is ours either way.
      await forms.deleteOne({ _id: formId, orgId: scope.orgId });
      return true;
    },
    async listFormBlobKeys(formId) {
      const docs = await submissions.find({ formId }, { projection: { files: 1 } }).toArray();
      return docs.flatMap((d) => (d.files ?? []).map((f) => f.blobKey));
    },
    async purgeDeletedForm(formId) {
      await forms.deleteOne({ _id: formId });
      await submissions.deleteMany({ formId });
      await counters.deleteOne({ _id: formId });
      await changeCounters.deleteOne({ _id: formId });
      await outbox.deleteMany({ formId });
      await db.collection(BLOCKED_COUNTS).deleteOne({ _id: formId } as never);
      await db.collection(FIELD_NAMES).deleteOne({ _id: formId } as never);
    },
    /**
     * Counters from before spam and daily counts are computed once from their form's submissions. The update
     * applies only if no batch moved the counter meanwhile; such a form is counted again at the next start.
     */
    async backfillCounters() {
      const stale = await counters
        .find({ days: { $exists: false }, seq: { $exists: true } }, { projection: { _id: 1, seq: 1 } })
        .toArray();
      let done = 0;
      for (const counter of stale) {
        const docs = await submissions
          .find({ formId: counter._id }, { projection: { seq: 1, deleted: 1, ...COUNTED_PROJECTION } })
          .toArray();
        const live = docs.filter((d) => !d.deleted && d.seq < (counter.seq ?? 0));
        const { $inc, $max } = insertIncrements(
          live.map((d) => ({ createdAt: d.createdAt, spam: d.spam, held: d.held, releasedAt: d.releasedAt })),
        );
        const days: Record<string, { total: number; spam: number }> = {};
        for (const [path, n] of Object.entries($inc)) {
          const [, day, field] = path.split('.');
          if (!day || !field) continue;
          days[day] ??= { total: 0, spam: 0 };
          (days[day] as Record<string, number>)[field] = n;
        }
        const res = await counters.updateOne(
          { _id: counter._id, seq: counter.seq, days: { $exists: false }, pending: { $exists: false } },
          { $set: { days, spam: $inc.spam ?? 0, ...($max ? { lastAt: $max.lastAt } : {}) } },
        );
        done += res.modifiedCount;
      }
      return done;
    },
  };
}
