import type { DailyCount, FormCounts } from '@formgate/contracts';
import { AppError } from '@formgate/kit';
import type { MongoDb } from '@formgate/store/mongo';
import { ignoreDuplicates } from './mongo-form-deletions.ts';
import { COUNTERS, type CounterDoc, insertIncrements, SUBMISSIONS, type SubmissionDoc } from './mongo-submissions.ts';
import { changes, dayOf, type SubmissionChange, type SubmissionChangeMethods } from './submission-changes.ts';

export const SUBMISSION_CHANGES = 'submission_changes';

/**
 * A change in the outbox, and how far it got: `new` (written, maybe applied to the submission), `applied` (the
 * submission changed, maybe counted), `counted` (the counters changed too: ready to publish).
 */
interface ChangeDoc extends Omit<SubmissionChange, 'id'> {
  _id: string;
  stage: 'new' | 'applied' | 'counted';
  /** Ingest's verdict on the submission (kept on it when a mark overrides it). */
  receivedSpam: boolean;
  /** Milliseconds since the epoch when written: the outbox is published in this order. */
  at: number;
}

interface FormDoc {
  _id: string;
  orgId: string;
  key: string;
  version: number;
}

const ATTEMPTS = 5;

/**
 * Submission changes of the Mongo `FormsStore` without transactions (ADR 0017-api). A change is written to
 * `submission_changes` first, then applied in steps that can each be repeated, by the request and, if that is cut
 * short, by the outbox relay: the submission changes only if it is still as read, and records the change id; the
 * counter (one document per form, days included) is incremented only if it does not hold the change id yet. The
 * ids are pulled once the event is published. A change whose submission changed meanwhile is dropped unapplied.
 */
export function createMongoSubmissionChanges(db: MongoDb): SubmissionChangeMethods & {
  backfillCounters(): Promise<number>;
} {
  const submissions = db.collection<SubmissionDoc>(SUBMISSIONS);
  const counters = db.collection<CounterDoc>(COUNTERS);
  const outbox = db.collection<ChangeDoc>(SUBMISSION_CHANGES);
  const forms = db.collection<FormDoc>('forms');
  const deletions = db.collection<{ _id: string; orgId: string; key: string; version: number }>('form_deletions');

  /** Takes a change as far as it goes; `dropped` when its submission is no longer as it was read. */
  async function advance(change: ChangeDoc): Promise<'counted' | 'dropped'> {
    const { _id: id, submissionId, formId, wasSpam } = change;
    if (change.stage === 'new') {
      const update =
        change.action === 'delete'
          ? { $set: { deleted: true as const, fields: [], files: [] }, $push: { changes: id } }
          : {
              $set: { 'spam.isSpam': change.action === 'spam', receivedSpam: change.receivedSpam },
              $push: { changes: id },
            };
      const res = await submissions.updateOne(
        { _id: submissionId, deleted: { $ne: true }, 'spam.isSpam': wasSpam, changes: { $ne: id } },
        update,
      );
      if (res.matchedCount === 0) {
        const doc = await submissions.findOne({ _id: submissionId }, { projection: { changes: 1 } });
        if (!doc?.changes?.includes(id)) {
          await outbox.deleteOne({ _id: id });
          return 'dropped';
        }
      }
      await outbox.updateOne({ _id: id, stage: 'new' }, { $set: { stage: 'applied' } });
    }
    if (change.stage !== 'counted') {
      const day = dayOf(change.receivedAt);
      const spamDelta = change.action === 'delete' ? (wasSpam ? -1 : 0) : change.action === 'spam' ? 1 : -1;
      const $inc: Record<string, number> = {};
      if (change.action === 'delete') {
        $inc.count = -1;
        $inc[`days.${day}.total`] = -1;
      }
      if (spamDelta !== 0) {
        $inc.spam = spamDelta;
        $inc[`days.${day}.spam`] = spamDelta;
      }
      await counters.updateOne({ _id: formId, changes: { $ne: id } }, { $inc, $push: { changes: id } });
      await outbox.updateOne({ _id: id }, { $set: { stage: 'counted' } });
    }
    return 'counted';
  }

  const toChange = ({ _id, stage: _s, receivedSpam: _r, at: _a, ...rest }: ChangeDoc): SubmissionChange => ({
    id: _id,
    ...rest,
  });

  return {
    async changeSubmission(scope, formId, submissionId, action, meta) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const doc = await submissions.findOne({ _id: submissionId }, { projection: { fields: 0 } });
        if (!doc || doc.deleted || doc.orgId !== scope.orgId || doc.formId !== formId) return 'not_found';
        const wasSpam = doc.spam.isSpam;
        if (!changes(action, wasSpam)) return 'unchanged';
        const change: ChangeDoc = {
          _id: attempt === 0 ? meta.id : `${meta.id}.${attempt}`,
          stage: 'new',
          formId,
          orgId: scope.orgId,
          submissionId,
          action,
          wasSpam,
          receivedSpam: doc.receivedSpam ?? wasSpam,
          receivedAt: doc.createdAt,
          occurredAt: meta.occurredAt,
          blobKeys: action === 'delete' ? doc.files.map((f) => f.blobKey) : [],
          at: Date.now(),
        };
        await outbox.insertOne(change);
        if ((await advance(change)) === 'counted') return 'changed';
      }
      throw new AppError('FORMS_CONCURRENT_UPDATE', 'The submission changed while updating; try again');
    },
    async listUnpublishedSubmissionChanges(limit) {
      if (limit <= 0) return [];
      const docs = await outbox.find({}).sort({ at: 1, _id: 1 }).limit(limit).toArray();
      const ready: SubmissionChange[] = [];
      for (const doc of docs) {
        if (doc.stage === 'counted' || (await advance(doc)) === 'counted') ready.push(toChange(doc));
      }
      return ready;
    },
    async markSubmissionChangePublished(changeId) {
      const doc = await outbox.findOne({ _id: changeId });
      if (!doc) return;
      await counters.updateOne({ _id: doc.formId }, { $pull: { changes: changeId } });
      await submissions.updateOne({ _id: doc.submissionId }, { $pull: { changes: changeId } });
      await outbox.deleteOne({ _id: changeId });
    },
    async getFormCounts(scope, formIds) {
      const result = new Map<string, FormCounts>();
      if (formIds.length === 0) return result;
      const docs = await counters
        .find({ _id: { $in: formIds } }, { projection: { orgId: 1, count: 1, spam: 1, lastAt: 1 } })
        .toArray();
      for (const d of docs) {
        if (d.orgId !== scope.orgId) continue;
        result.set(d._id, { submissionCount: d.count, spamCount: d.spam ?? 0, lastSubmissionAt: d.lastAt ?? null });
      }
      return result;
    },
    async getDailyCounts(scope, formId, fromDay, toDay) {
      const counter = await counters.findOne({ _id: formId }, { projection: { orgId: 1, days: 1 } });
      if (!counter || counter.orgId !== scope.orgId) return [];
      return Object.entries(counter.days ?? {})
        .filter(([day, c]) => day >= fromDay && day <= toDay && (c.total ?? 0) > 0)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([day, c]): DailyCount => ({ day, total: c.total ?? 0, spam: c.spam ?? 0 }));
    },
    async deleteForm(scope, formId) {
      const form = await forms.findOne({ _id: formId }, { projection: { orgId: 1, key: 1, version: 1 } });
      if (!form || form.orgId !== scope.orgId) return false;
      await deletions
        .insertMany([{ _id: formId, orgId: form.orgId, key: form.key, version: form.version + 1 }], { ordered: false })
        .catch(ignoreDuplicates);
      const { deletedCount } = await forms.deleteOne({ _id: formId, orgId: scope.orgId });
      return deletedCount === 1;
    },
    async listFormBlobKeys(formId) {
      const docs = await submissions.find({ formId }, { projection: { files: 1 } }).toArray();
      return docs.flatMap((d) => (d.files ?? []).map((f) => f.blobKey));
    },
    async purgeDeletedForm(formId) {
      await forms.deleteOne({ _id: formId });
      await submissions.deleteMany({ formId });
      await counters.deleteOne({ _id: formId });
      await outbox.deleteMany({ formId });
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
          .find({ formId: counter._id }, { projection: { seq: 1, createdAt: 1, spam: 1, deleted: 1 } })
          .toArray();
        const live = docs.filter((d) => !d.deleted && d.seq < (counter.seq ?? 0));
        const { $inc, $max } = insertIncrements(live.map((d) => ({ createdAt: d.createdAt, spam: d.spam })));
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
