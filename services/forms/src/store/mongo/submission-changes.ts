import { AppError } from '@formgate/kit';
import { insertOnce, type MongoDb } from '@formgate/store/mongo';
import type { CountedChange, SubmissionChange, SubmissionRecord } from '../records.ts';
import {
  type ChangeMeta,
  changeIncrements,
  changes,
  dayOf,
  erasedBy,
  releasedSubmission,
  type SubmissionChanges,
  tombstoneVerdict,
} from '../submission-changes.ts';
import { type ChangeCounterDoc, type ChangeDoc, Collections, type SubmissionDoc } from './schema.ts';

/** A change that finds the next version claimed waits for the claimant to apply it: 7 reads over about 1.3 s. */
const ATTEMPTS = 7;
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, 10 * 2 ** attempt));
/** A claimed change not applied after this long was abandoned (its request died); the relay applies it. */
const ABANDONED_MS = 30_000;
/** How many counted change ids a form's change counter remembers (more than a consumer batch holds). */
const RECENT = 2_000;

/** The state a change gives its submission (`$set`), and what it erases (`$unset`). */
function stateOf(change: ChangeDoc) {
  const deletes = change.action === 'delete' || change.action === 'erase';
  const state = deletes
    ? {
        deleted: true as const,
        fields: [],
        files: [],
        terms: [],
        ...(change.tombstoneSpam ? { spam: change.tombstoneSpam } : {}),
      }
    : change.action === 'release'
      ? { held: false, releasedAt: change.occurredAt }
      : {
          'spam.isSpam': change.action === 'spam',
          receivedSpam: change.receivedSpam,
          // Released from spam (issue 14): once only.
          ...(change.submission ? { spamReleased: true as const } : {}),
        };
  // A deleted submission keeps nothing of what the submitter sent: its origin and referer go with its fields.
  const gone: Record<string, true> = deletes
    ? { origin: true, referer: true, meta: true, addressKeys: true, fileScans: true }
    : change.action === 'release' || change.submission
      ? { meta: true }
      : {};
  return { $set: { ...state, v: change.v + 1 }, ...(Object.keys(gone).length > 0 ? { $unset: gone } : {}) };
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
  ...(d.action === 'erase' ? erasedBy(d, d.wasHeld === true) : {}),
  ...(d.submission ? { submission: d.submission } : {}),
});

/**
 * `SubmissionChanges` on MongoDB 7+ / FerretDB 1.24, without transactions and without conditional updates, which
 * FerretDB 1.24 runs as a read then a write (ADR 0020, ADR 55). A change claims the submission's next version by
 * inserting its outbox document (`insertOnce`: a duplicate `_id` fails atomically), then writes the submission's
 * new state; only the claimant writes it, so concurrent changes of one submission apply one at a time. A claim
 * whose request died is applied by the relay later. On MongoDB a transaction (or a `findOneAndUpdate` on `v`) would
 * apply the change and insert its outbox document in one step. The counters of changes live in
 * `form_change_counters`, written only by the consumer of `forms.submission` (one writer per form, like
 * `form_counters` and the projection).
 */
export function createMongoSubmissionChanges(db: MongoDb): SubmissionChanges {
  const submissions = db.collection<SubmissionDoc>(Collections.submissions);
  const changeCounters = db.collection<ChangeCounterDoc>(Collections.changeCounters);
  const outbox = db.collection<ChangeDoc>(Collections.submissionChanges);

  /** Gives the submission the change's state, if it still has the version the change claimed after. */
  async function apply(change: ChangeDoc): Promise<void> {
    const version = change.v === 0 ? { $exists: false } : change.v;
    // Both by `_id`; the version is checked on the document.
    await submissions.updateOne({ _id: change.submissionId, v: version }, stateOf(change));
    await outbox.updateOne({ _id: change._id }, { $set: { applied: true } });
  }

  /** The change `action` makes to `doc` (live, of the scope's form), claiming its next version. */
  function changeOf(doc: SubmissionDoc, action: SubmissionChange['action'], meta: ChangeMeta) {
    const wasSpam = doc.spam.isSpam;
    const v = doc.v ?? 0;
    const stored = { ...doc, id: doc._id };
    let submission: SubmissionRecord | undefined;
    if (action === 'release') submission = releasedSubmission(stored, doc.spam);
    else if (action === 'not-spam' && (doc.receivedSpam ?? wasSpam) && !doc.spamReleased && !doc.contentDropped) {
      // Released from spam (issue 14): the first not-spam mark of a submission ingest judged spam.
      submission = releasedSubmission(stored, { isSpam: false, reasons: doc.spam.reasons });
    }
    const change: ChangeDoc = {
      _id: `${doc._id}#${v + 1}`,
      eventId: meta.id,
      v,
      applied: false,
      formId: doc.formId,
      orgId: doc.orgId,
      submissionId: doc._id,
      action,
      wasSpam,
      receivedSpam: doc.receivedSpam ?? wasSpam,
      receivedAt: doc.createdAt,
      occurredAt: meta.occurredAt,
      blobKeys: action === 'delete' || action === 'erase' ? doc.files.map((f) => f.blobKey) : [],
      ...(action === 'erase' ? erasedBy(meta, doc.held === true) : {}),
      ...(action === 'delete' || action === 'erase' ? { tombstoneSpam: tombstoneVerdict(doc.spam) } : {}),
      ...(submission ? { submission } : {}),
      at: Date.now(),
    };
    return change;
  }

  return {
    async changeSubmission(scope, formId, submissionId, action, meta) {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (attempt > 0) await pause(attempt);
        const whole = action === 'release' || action === 'not-spam';
        // By `_id`; the organization and the form are checked on the document.
        const doc = await submissions.findOne(
          { _id: submissionId },
          { projection: whole ? { buckets: 0, terms: 0 } : { fields: 0 } },
        );
        if (!doc || doc.deleted || doc.orgId !== scope.orgId || doc.formId !== formId) return 'not_found';
        const effect = changes(action, doc.spam.isSpam, doc.held === true);
        if (effect !== true) return effect;
        const change = changeOf(doc, action, meta);
        // Another change took this version: read it again.
        if (!(await insertOnce(outbox.insertOne(change)))) continue;
        await apply(change);
        return 'changed';
      }
      throw new AppError('FORMS_CONCURRENT_UPDATE', 'The submission changed while updating; try again');
    },
    async listUnpublishedSubmissionChanges(limit) {
      if (limit <= 0) return [];
      // A scan of the outbox (short: its changes are published within seconds), sorted.
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
      // A scan of the (short) outbox: the equality on `eventId` is pushed down.
      await outbox.deleteMany({ eventId: changeId });
    },
    async countSubmissionChanges(list) {
      const byForm = new Map<string, CountedChange[]>();
      for (const c of list) byForm.set(c.formId, [...(byForm.get(c.formId) ?? []), c]);
      for (const [formId, batch] of byForm) await countForm(formId, batch);
    },
  };

  /** Counts one form's changes not counted yet (by the ids its change counter remembers). */
  async function countForm(formId: string, batch: CountedChange[]) {
    // The read and the update by `_id`.
    const current = await changeCounters.findOne({ _id: formId }, { projection: { recent: 1 } });
    const seen = new Set(current?.recent ?? []);
    const fresh: CountedChange[] = [];
    for (const c of batch) {
      if (seen.has(c.id)) continue;
      seen.add(c.id);
      fresh.push(c);
    }
    if (fresh.length === 0) return;
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
}
