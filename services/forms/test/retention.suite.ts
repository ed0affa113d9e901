import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import { createLogger, systemIds } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { SubmissionChanges } from '../src/store/submission-changes.ts';
import { type RetentionDeps, sweepRetention } from '../src/use-cases/retention.ts';
import { form, org, submission } from './forms-fixtures.ts';

const DAY = 86_400_000;
const T0 = Date.parse('2026-06-01T12:00:00.000Z');

/** A clock the test moves. */
function fakeClock(start = T0) {
  let now = start;
  return { now: () => new Date(now), advanceDays: (days: number) => (now += days * DAY) };
}

/**
 * `sweepRetention` against a real store, with a fake clock: `create` opens an instance on one database (called
 * twice for two forms instances sharing it).
 */
export function retentionSuite(name: string, create: () => Promise<FormsStores>) {
  describe(`the retention sweep on ${name}`, () => {
    const deps = (stores: FormsStores, clock: { now: () => Date }, overrides: Partial<RetentionDeps> = {}) =>
      ({
        retention: stores.retention,
        changes: stores.changes,
        clock,
        ids: systemIds,
        logger: createLogger({ level: 'silent', name: 'forms' }),
        retentionLimit: () => null,
        publishChanges: async () => true,
        ...overrides,
      }) satisfies RetentionDeps;
    /** A form whose submissions were received `ages` days before T0 (a file each), held for the odd ones. */
    const setUp = async (stores: FormsStores, retentionDays: number | null, ages: number[]) => {
      const scope = org();
      const f: Form = form(scope.orgId, { settings: { ...DEFAULT_FORM_SETTINGS, retentionDays } });
      await stores.forms.insertForm(f);
      const stored = ages.map((age, i) =>
        submission(f, new Date(T0 - age * DAY).toISOString(), {
          held: i % 2 === 1,
          fields: [{ name: 'message', value: `message ${i}` }],
          files: [
            {
              field: 'cv',
              filename: 'cv.pdf',
              contentType: 'application/pdf',
              size: 3,
              blobKey: `blob-${randomUUID()}`,
            },
          ],
        }),
      );
      await stores.submissions.insertSubmissions(stored);
      return { scope, f, stored };
    };
    /** The form's changes waiting in the outbox, by submission. */
    const changesOf = async (stores: FormsStores, formId: string) =>
      (await stores.changes.listUnpublishedSubmissionChanges(100_000)).filter((c) => c.formId === formId);
    const alive = async (stores: FormsStores, f: Form) =>
      (await stores.retention.listExpired({ orgId: f.orgId }, f.id, '9999', 10_000)).map((s) => s.createdAt);

    it("deletes what the form's retention no longer keeps as expired erasures, with their files, then more as time passes", async () => {
      const stores = await create();
      const clock = fakeClock();
      const { scope, f, stored } = await setUp(stores, 30, [45, 31, 29.5, 10, 1]);
      const kept = await setUp(stores, null, [400, 45]);

      await sweepRetention(deps(stores, clock));
      const gone = stored.slice(0, 2);
      for (const s of gone) expect(await stores.submissions.getSubmission(scope, f.id, s.id)).toBeNull();
      expect(await stores.submissions.getSubmission(scope, f.id, stored[2]?.id ?? '')).not.toBeNull();
      const changes = await changesOf(stores, f.id);
      expect(changes.map((c) => c.submissionId).sort()).toEqual(gone.map((s) => s.id).sort());
      for (const c of changes) {
        expect(c).toMatchObject({ action: 'erase', expired: true });
        expect(c.erasure).toBeUndefined();
        const s = stored.find((x) => x.id === c.submissionId);
        expect(c.blobKeys).toEqual(s?.files.map((x) => x.blobKey));
        expect(c.wasHeld).toBe(s?.held);
      }
      // No retention anywhere: nothing goes, however old.
      expect(await alive(stores, kept.f)).toHaveLength(2);
      expect(await changesOf(stores, kept.f.id)).toEqual([]);

      // A second sweep at the same time deletes nothing more.
      expect(await sweepRetention(deps(stores, clock))).toBe(0);
      clock.advanceDays(1);
      await sweepRetention(deps(stores, clock));
      expect(await alive(stores, f)).toEqual(stored.slice(3).map((s) => s.createdAt));
      expect((await changesOf(stores, f.id)).map((c) => c.submissionId)).toContain(stored[2]?.id);
    });

    it("falls back to the organization's default, and the plan's maximum caps both", async () => {
      const stores = await create();
      const clock = fakeClock();
      const byDefault = await setUp(stores, null, [8, 6]);
      await stores.retention.setOrgDays(byDefault.scope, 7);
      const overPlan = await setUp(stores, 400, [366, 364]);
      const limited = new Set([overPlan.f.orgId, byDefault.f.orgId]);
      await sweepRetention(deps(stores, clock, { retentionLimit: (orgId) => (limited.has(orgId) ? 365 : null) }));
      expect(await alive(stores, byDefault.f)).toEqual([byDefault.stored[1]?.createdAt]);
      expect(await alive(stores, overPlan.f)).toEqual([overPlan.stored[1]?.createdAt]);
    });

    it('a sweep cut short by a crash leaves what it deleted deleted; the next one deletes the rest, each once', async () => {
      const stores = await create();
      const clock = fakeClock();
      const { f, stored } = await setUp(
        stores,
        7,
        Array.from({ length: 12 }, (_, i) => 30 - i),
      );
      let calls = 0;
      const crashing: SubmissionChanges = {
        ...stores.changes,
        changeSubmission: async (...args) => {
          if (++calls === 5) throw new Error('the process died');
          return stores.changes.changeSubmission(...args);
        },
      };
      await expect(sweepRetention(deps(stores, clock, { changes: crashing }))).rejects.toThrow('the process died');
      expect(await changesOf(stores, f.id)).toHaveLength(4);

      // The instance restarts: a new store over the same database.
      const restarted = await create();
      await sweepRetention(deps(restarted, clock));
      const changes = await changesOf(restarted, f.id);
      expect(changes.map((c) => c.submissionId).sort()).toEqual(stored.map((s) => s.id).sort());
      expect(await alive(restarted, f)).toEqual([]);
    });

    it('sweeps of two instances at once delete each submission once', async () => {
      const [a, b] = [await create(), await create()];
      const clock = fakeClock();
      const { f, stored } = await setUp(
        a,
        1,
        Array.from({ length: 40 }, (_, i) => 2 + i / 10),
      );
      const counts = await Promise.all([sweepRetention(deps(a, clock)), sweepRetention(deps(b, clock))]);
      expect(counts[0] + counts[1]).toBe(stored.length);
      const changes = await changesOf(a, f.id);
      expect(changes).toHaveLength(stored.length);
      expect(new Set(changes.map((c) => c.submissionId)).size).toBe(stored.length);
    });
  });
}
