import { randomBytes } from 'node:crypto';
import type { mongo } from 'mongoose';
import { describe, expect, it, vi } from 'vitest';
import { createMongoOutcomeOverlay } from '../src/mongo-outcome-overlay.ts';
import { useTestMongo } from '../src/testing.ts';

const testDb = useTestMongo();

/** A job: `marked` when its outcome may be recorded beside it, `flagged` while a list finds it. */
interface JobDoc {
  _id: string;
  state: 'open' | 'done' | 'failed';
  marked?: true;
  flagged?: true;
}
interface Job {
  id: string;
  state: JobDoc['state'];
}
interface ResultDoc {
  _id: string;
  outcome: { state: 'done' | 'failed' } | null;
}

/** A fresh pair of collections and the overlay of the jobs' results over them. */
function jobs(gatherMs?: number) {
  const db = testDb().db as mongo.Db;
  const suffix = randomBytes(4).toString('hex');
  const docs = db.collection<JobDoc>(`jobs_${suffix}`);
  const results = db.collection<ResultDoc>(`job_results_${suffix}`);
  const view = ({ _id, state }: JobDoc): Job => ({ id: _id, state });
  const overlay = createMongoOutcomeOverlay({
    records: results,
    recordId: (id) => `${id}!`,
    awaits: (doc: JobDoc) => doc.marked === true && doc.state === 'open',
    view,
    fold: (job: Job, outcome: NonNullable<ResultDoc['outcome']>) => ({ ...job, state: outcome.state }),
    settle: async (doc, outcome) => {
      const written = await docs.findOneAndUpdate(
        { _id: doc._id },
        { $set: { state: outcome.state }, $unset: { flagged: '' } },
        { returnDocument: 'after' },
      );
      return written ? view(written) : null;
    },
    gatherMs,
  });
  return { docs, results, overlay };
}

describe('createMongoOutcomeOverlay', () => {
  it('folds the outcome recorded beside a marked document into its reads, and nothing into any other', async () => {
    const { docs, results, overlay } = jobs();
    await docs.insertMany([
      { _id: 'a', state: 'open', marked: true },
      { _id: 'b', state: 'open', marked: true },
      { _id: 'c', state: 'open' },
      { _id: 'd', state: 'failed', marked: true },
    ]);
    await overlay.record({ _id: 'b!', outcome: { state: 'done' } });
    // Records the documents do not await: one unmarked, one whose own outcome was written since.
    await results.insertMany([
      { _id: 'c!', outcome: { state: 'done' } },
      { _id: 'd!', outcome: { state: 'done' } },
    ]);

    expect(await overlay.readAll(await docs.find().sort({ _id: 1 }).toArray())).toEqual([
      { id: 'a', state: 'open' },
      { id: 'b', state: 'done' },
      { id: 'c', state: 'open' },
      { id: 'd', state: 'failed' },
    ]);
    // The documents themselves are not written.
    expect(await docs.findOne({ _id: 'b' })).toEqual({ _id: 'b', state: 'open', marked: true });
    expect(await overlay.outcomeOf('b')).toEqual({ state: 'done' });
    expect(await overlay.outcomeOf('a')).toBeNull();
  });

  it('gathers the records of concurrent callers into one insert while another is under way; a recorded outcome stays', async () => {
    const { results, overlay } = jobs();
    const inserts = vi.spyOn(results, 'insertMany');
    const ids = Array.from({ length: 20 }, (_, i) => `job${i}`);

    await Promise.all(ids.map((id) => overlay.record({ _id: `${id}!`, outcome: { state: 'done' } })));
    // The first record is written at once, the 19 submitted meanwhile in the next insert.
    expect(inserts).toHaveBeenCalledTimes(2);
    expect(await results.countDocuments({})).toBe(20);

    await overlay.record({ _id: 'job0!', outcome: { state: 'failed' } });
    expect(await overlay.outcomeOf('job0')).toEqual({ state: 'done' });
  });

  it('with gatherMs, a record waits for the ones that follow within it to share its insert', async () => {
    const { results, overlay } = jobs(40);
    const inserts = vi.spyOn(results, 'insertMany');
    const first = overlay.record({ _id: 'a!', outcome: { state: 'done' } });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const second = overlay.record({ _id: 'b!', outcome: { state: 'failed' } });
    expect(inserts).not.toHaveBeenCalled();

    await Promise.all([first, second]);
    expect(inserts).toHaveBeenCalledTimes(1);
    expect(await overlay.outcomeOf('b')).toEqual({ state: 'failed' });
  });

  it('writes a recorded outcome on its document for the lists that read the document’s own fields', async () => {
    const { docs, results, overlay } = jobs();
    await docs.insertMany([
      { _id: 'a', state: 'open', marked: true, flagged: true },
      { _id: 'b', state: 'open', marked: true, flagged: true },
    ]);
    await overlay.record({ _id: 'a!', outcome: { state: 'done' } });
    // A record whose document is gone by the time it is settled.
    await results.insertOne({ _id: 'gone!', outcome: { state: 'failed' } });
    const flagged = await docs.find({ flagged: true }).sort({ _id: 1 }).toArray();

    expect(await overlay.settled([...flagged, { _id: 'gone', state: 'open', marked: true, flagged: true }])).toEqual([
      { id: 'a', state: 'done' },
      { id: 'b', state: 'open' },
      { id: 'gone', state: 'failed' },
    ]);
    expect(await docs.findOne({ _id: 'a' })).toEqual({ _id: 'a', state: 'done', marked: true });
    expect(await docs.find({ flagged: true }).toArray()).toEqual([
      { _id: 'b', state: 'open', marked: true, flagged: true },
    ]);
  });
});
