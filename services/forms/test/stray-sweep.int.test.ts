import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { createLogger } from '@formgate/kit';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { STRAY_MIN_AGE_MS, sweepStrays } from '../src/files/stray-sweep.ts';
import { form, org, submission } from './forms-fixtures.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const logger = createLogger({ level: 'silent', name: 'forms' });

describe('the stray sweep (issue 33): files no stored submission names, once old enough', () => {
  it('deletes abandoned uploads and the files of deleted or dropped submissions, keeps the rest', async () => {
    const stores = openSqliteFormsStores();
    const blobs = createSqliteBlobStore(openSqlite(':memory:'));
    const scope = org();
    const f = form(scope.orgId);
    await stores.forms.insertForm(f);
    const put = async () => {
      const key = randomBytes(18).toString('base64url');
      await blobs.put(
        key,
        Readable.from([Buffer.from('%PDF-1.7 x')]),
        { contentType: 'application/pdf', filename: 'a.pdf' },
        1e3,
      );
      return key;
    };
    const file = (blobKey: string) => ({
      field: 'cv',
      blobKey,
      filename: 'a.pdf',
      contentType: 'application/pdf',
      size: 10,
    });
    const [kept, abandoned, ofDeleted, ofHeld] = [await put(), await put(), await put(), await put()];
    const live = submission(f, '2026-01-01T00:00:00.000Z', { files: [file(kept)] });
    const deleted = submission(f, '2026-01-01T00:00:01.000Z', { files: [file(ofDeleted)] });
    const held = submission(f, '2026-01-01T00:00:02.000Z', { files: [file(ofHeld)], held: true });
    await stores.submissions.insertSubmissions([live, deleted, held]);
    // Its tombstone's relay would delete the file; a crash before that leaves it.
    await stores.changes.changeSubmission(scope, f.id, deleted.id, 'delete', {
      id: 'c1',
      occurredAt: '2026-01-02T00:00:00.000Z',
    });

    const at = (ms: number) => ({ now: () => new Date(Date.now() + ms) });
    const deps = { blobs, submissions: stores.submissions, caughtUp: async () => true, logger };
    // Too young: nothing is judged.
    expect(await sweepStrays({ ...deps, clock: at(0) })).toEqual({ skipped: false, scanned: 0, strays: 0, deleted: 0 });
    const later = at(STRAY_MIN_AGE_MS + 60_000);
    // A dry run counts them.
    expect(await sweepStrays({ ...deps, clock: later }, { dryRun: true })).toEqual({
      skipped: false,
      scanned: 4,
      strays: 2,
      deleted: 0,
    });
    expect(await blobs.get(abandoned)).not.toBeNull();
    // The projection behind: nothing is judged.
    expect(await sweepStrays({ ...deps, clock: later, caughtUp: async () => false })).toMatchObject({
      skipped: true,
      deleted: 0,
    });
    expect(await sweepStrays({ ...deps, clock: later })).toEqual({ skipped: false, scanned: 4, strays: 2, deleted: 2 });
    expect(await blobs.get(abandoned)).toBeNull();
    expect(await blobs.get(ofDeleted)).toBeNull();
    expect(await blobs.get(kept)).not.toBeNull();
    expect(await blobs.get(ofHeld)).not.toBeNull();
    // A dropped submission's files go too.
    await stores.submissions.dropContent(scope, f.id, live.id);
    expect(await sweepStrays({ ...deps, clock: later })).toMatchObject({ scanned: 2, deleted: 1 });
    expect(await blobs.get(kept)).toBeNull();
  });

  it('pages through many blobs', async () => {
    const stores = openSqliteFormsStores();
    const blobs = createSqliteBlobStore(openSqlite(':memory:'));
    const keys = await Promise.all(
      Array.from({ length: 1_203 }, async () => {
        const key = randomBytes(18).toString('base64url');
        await blobs.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', filename: 'x' }, 10);
        return key;
      }),
    );
    const result = await sweepStrays({
      blobs,
      submissions: stores.submissions,
      caughtUp: async () => true,
      logger,
      clock: { now: () => new Date(Date.now() + STRAY_MIN_AGE_MS + 60_000) },
    });
    expect(result).toEqual({ skipped: false, scanned: keys.length, strays: keys.length, deleted: keys.length });
    expect((await blobs.listBefore(new Date(Date.now() + 1e9), null, 10)).keys).toEqual([]);
  });
});
