import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { BusMessage } from '@formgate/bus';
import { DEFAULT_FORM_SETTINGS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { STORED_WAIT_MS, SubmissionNotYetStoredError } from '../src/handlers/not-yet-stored.ts';
import { createSubmissionSettledHandler } from '../src/handlers/submission-settled.handler.ts';
import { form, org, submission } from './forms-fixtures.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const message = (value: string, offset = 0): BusMessage =>
  ({
    topic: Topics.notificationsDelivery,
    partition: 0,
    offset: String(offset),
    key: 'k',
    value,
    headers: {},
  }) as BusMessage;

const settled = (f: Form, submissionId: string) =>
  encodeEvent(Topics.notificationsDelivery, {
    id: `settled-${submissionId}`,
    type: 'submission.settled',
    version: 1,
    occurredAt: '2026-05-01T12:00:00.000Z',
    data: { submissionId, formId: f.id, orgId: f.orgId, settledAt: '2026-05-01T12:00:00.000Z' },
  });

/** A minute after the fixtures' settling. */
const clock = { now: () => new Date('2026-05-01T12:01:00.000Z') };

describe('forms.content-drop: a no-store form keeps only metadata once notifications settled a submission', () => {
  const stores = openSqliteFormsStores();
  const blobs = createSqliteBlobStore(openSqlite(':memory:'));

  const setUp = async (storeContent: boolean) => {
    const scope = org();
    const f = form(scope.orgId, { settings: { ...DEFAULT_FORM_SETTINGS, storeContent } });
    await stores.forms.insertForm(f);
    const blobKey = `blob${randomUUID().replaceAll('-', '')}`;
    await blobs.put(
      blobKey,
      Readable.from([Buffer.from('%PDF secret')]),
      { contentType: 'application/pdf', filename: 'cv.pdf' },
      100,
    );
    const s = submission(f, '2026-05-01T10:00:00.000Z', {
      fields: [{ name: 'message', value: 'private words' }],
      files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 11, blobKey }],
    });
    await stores.submissions.insertSubmissions([s]);
    return { scope, f, s, blobKey };
  };

  it("drops the fields and deletes the files of a no-store form's settled submission, once however often", async () => {
    const { scope, f, s, blobKey } = await setUp(false);
    let deletes = 0;
    const handle = createSubmissionSettledHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      clock,
      blobs: {
        delete: async (key) => {
          deletes++;
          await blobs.delete(key);
        },
      },
    });
    await handle([message(settled(f, s.id))]);
    const read = await stores.submissions.getSubmission(scope, f.id, s.id);
    expect(read).toMatchObject({ id: s.id, fields: [], files: [], contentDropped: true });
    expect(await blobs.get(blobKey)).toBeNull();
    await handle([message(settled(f, s.id), 1)]);
    expect(deletes).toBe(1);
  });

  it('a crash between the file deletion and the drop: the redelivered event finishes it', async () => {
    const { scope, f, s, blobKey } = await setUp(false);
    const crashing = createSubmissionSettledHandler({
      forms: stores.forms,
      clock,
      submissions: {
        getSubmission: (...args) => stores.submissions.getSubmission(...args),
        dropContent: async () => {
          throw new Error('the process died');
        },
      },
      blobs,
    });
    await expect(crashing([message(settled(f, s.id))])).rejects.toThrow('the process died');
    expect(await blobs.get(blobKey)).toBeNull();
    expect((await stores.submissions.getSubmission(scope, f.id, s.id))?.fields).toHaveLength(1);
    await createSubmissionSettledHandler({ forms: stores.forms, submissions: stores.submissions, blobs, clock })([
      message(settled(f, s.id)),
    ]);
    expect(await stores.submissions.getSubmission(scope, f.id, s.id)).toMatchObject({ fields: [], files: [] });
  });

  it('keeps everything of a form that stores content, and skips delivery outcomes', async () => {
    const { scope, f, s, blobKey } = await setUp(true);
    const handle = createSubmissionSettledHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      blobs,
      clock,
    });
    const outcome = encodeEvent(Topics.notificationsDelivery, {
      id: randomUUID(),
      type: 'delivery.succeeded',
      version: 1,
      occurredAt: '2026-05-01T12:00:00.000Z',
      data: {
        deliveryId: 'd1',
        orgId: f.orgId,
        formId: f.id,
        submissionId: s.id,
        channel: 'webhook',
        purpose: 'standard',
        target: 'https://hooks.example',
        attempt: 1,
        final: true,
        at: '2026-05-01T12:00:00.000Z',
      },
    });
    await handle([message(outcome), message(settled(f, s.id), 1)]);
    expect((await stores.submissions.getSubmission(scope, f.id, s.id))?.fields).toHaveLength(1);
    expect(await blobs.get(blobKey)).not.toBeNull();
  });

  it('settled before forms stored it: retried until it is stored, then dropped; an old one for a submission that never comes is skipped', async () => {
    const scope = org();
    const f = form(scope.orgId, { settings: { ...DEFAULT_FORM_SETTINGS, storeContent: false } });
    await stores.forms.insertForm(f);
    const s = submission(f, '2026-05-01T10:00:00.000Z', { fields: [{ name: 'message', value: 'private words' }] });
    const handle = createSubmissionSettledHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      blobs,
      clock,
    });
    await expect(handle([message(settled(f, s.id))])).rejects.toBeInstanceOf(SubmissionNotYetStoredError);
    await stores.submissions.insertSubmissions([s]);
    await handle([message(settled(f, s.id))]);
    expect(await stores.submissions.getSubmission(scope, f.id, s.id)).toMatchObject({
      fields: [],
      contentDropped: true,
    });

    const later = createSubmissionSettledHandler({
      forms: stores.forms,
      submissions: stores.submissions,
      blobs,
      clock: { now: () => new Date(Date.parse('2026-05-01T12:00:00.000Z') + STORED_WAIT_MS) },
    });
    await expect(later([message(settled(f, 'never-stored'))])).resolves.toBeUndefined();
  });
});
