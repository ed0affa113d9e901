import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BusMessage, EventBus, Subscription } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { DEFAULT_FORM_SETTINGS, decodeEvent, encodeEvent, type Form, Topics } from '@formgate/contracts';
import {
  createIdentityCodec,
  createLogger,
  IDENTITY_HEADER,
  type Service,
  systemClock,
  systemIds,
} from '@formgate/kit';
import { eventually, testPrivacyKeys } from '@formgate/kit/testing';
import type { BlobStore } from '@formgate/store';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormsService } from '../src/create-service.ts';
import type { FormsStores } from '../src/store/forms-stores.ts';
import type { SubmissionRecord } from '../src/store/records.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

/**
 * The forms service's side of submission changes and form deletions: what reaches `forms.submission` and
 * `forms.form`, and which files are deleted, through its HTTP API and its consumers on a real (SQLite) log.
 */
describe('forms service: submission changes and form deletions as events', () => {
  let dir: string;
  let bus: EventBus;
  let stores: FormsStores;
  let blobs: BlobStore;
  let service: Service;
  let server: Server;
  let baseUrl: string;
  const followers: Subscription[] = [];
  const events = { submission: [] as BusMessage[], form: [] as BusMessage[] };
  const codec = createIdentityCodec(randomBytes(32).toString('base64url'));
  const orgId = `org_${randomUUID()}`;

  const call = async (method: string, path: string, body?: unknown) => {
    const token = await codec.sign({ userId: 'u1', email: null, orgId, roles: ['owner'], via: 'session' });
    const res = await fetch(`${baseUrl}/api/v1/forms${path}`, {
      method,
      headers: { [IDENTITY_HEADER]: token, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const receive = (f: { id: string }, files: string[] = []) => {
    const submissionId = randomUUID();
    const value = encodeEvent(Topics.ingestSubmission, {
      id: randomUUID(),
      type: 'submission.received',
      version: 1,
      occurredAt: new Date().toISOString(),
      data: {
        submissionId,
        formId: f.id,
        orgId,
        receivedAt: new Date().toISOString(),
        fields: [{ name: 'a', value: '1' }],
        files: files.map((blobKey) => ({ field: 'f', blobKey, filename: 'x.txt', contentType: 'text/plain', size: 1 })),
        meta: {},
        spam: { isSpam: false, reasons: [] },
        held: false,
      },
    });
    return { submissionId, message: { key: f.id, value } };
  };
  const putBlob = async () => {
    const key = `blob_${randomUUID().replaceAll('-', '')}`;
    await blobs.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', filename: 'x.txt' }, 100);
    return key;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-forms-changes-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    stores = openSqliteFormsStores();
    blobs = createSqliteBlobStore(openSqlite(join(dir, 'blobs.db')));
    service = createFormsService({
      stores,
      privacy: testPrivacyKeys(),
      blobs,
      bus,
      clock: systemClock,
      ids: systemIds,
      logger: createLogger({ level: 'silent', name: 'forms' }),
      identity: codec,
    });
    await service.start();
    server = createServer(service.app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    followers.push(await bus.replay(Topics.formsSubmission, (m) => void events.submission.push(m)));
    followers.push(await bus.replay(Topics.formsForm, (m) => void events.form.push(m)));
  });
  afterAll(async () => {
    for (const f of followers) await f.stop();
    await new Promise((resolve) => server?.close(resolve));
    await service.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('publishes every change once on forms.submission, keyed by form id, and deletes the files of a deleted one', async () => {
    const f = (await call('POST', '', { name: 'Events' })).body as Form;
    const blob = await putBlob();
    const a = receive(f, [blob]);
    const b = receive(f);
    await bus.publish(Topics.ingestSubmission, [a.message, b.message]);
    await eventually(async () => expect((await call('GET', `/${f.id}`)).body.submissionCount).toBe(2));

    expect((await call('PATCH', `/${f.id}/submissions/${b.submissionId}`, { spam: true })).status).toBe(200);
    expect((await call('PATCH', `/${f.id}/submissions/${b.submissionId}`, { spam: true })).status).toBe(200);
    expect((await call('DELETE', `/${f.id}/submissions/${a.submissionId}`)).status).toBe(204);
    expect((await call('DELETE', `/${f.id}/submissions/${a.submissionId}`)).status).toBe(404);

    const mine = () =>
      events.submission.filter((m) => m.key === f.id).map((m) => decodeEvent(Topics.formsSubmission, m.value));
    await eventually(() => expect(mine()).toHaveLength(2));
    const [marked, deleted] = mine();
    expect(marked).toMatchObject({
      type: 'submission.spam-marked',
      data: { submissionId: b.submissionId, formId: f.id, orgId, spam: true, wasSpam: false },
    });
    expect(deleted).toMatchObject({
      type: 'submission.deleted',
      data: { submissionId: a.submissionId, formId: f.id, orgId, wasSpam: false },
    });
    expect(new Set(mine().map((e) => e.id)).size).toBe(2);
    expect(await blobs.get(blob)).toBeNull();
    expect(await stores.changes.listUnpublishedSubmissionChanges(100)).toEqual([]);
    // A redelivery of the deleted submission's event does not bring it back.
    await bus.publish(Topics.ingestSubmission, [a.message]);
    const late = receive(f);
    await bus.publish(Topics.ingestSubmission, [late.message]);
    await eventually(async () => expect((await call('GET', `/${f.id}`)).body.submissionCount).toBe(2));
    expect((await call('GET', `/${f.id}/submissions/${a.submissionId}`)).status).toBe(404);
    expect((await call('GET', `/${f.id}`)).body).toMatchObject({ submissionCount: 2, spamCount: 1 });
  });

  it('keeps per-form notification settings: defaults on create, a PATCH merges key by key, form.upserted carries them', async () => {
    const f = (await call('POST', '', { name: 'Notified', settings: { honeypotField: 'hp' } })).body as Form;
    expect(f.settings.notifications).toEqual({
      enabled: true,
      emails: [],
      subject: null,
      autoresponse: { enabled: false, text: '' },
    });
    const emails = ['team@example.com', 'ops@example.com'];
    let res = await call('PATCH', `/${f.id}`, { settings: { notifications: { emails, subject: '{{form}}: new' } } });
    expect(res.status).toBe(200);
    res = await call('PATCH', `/${f.id}`, { settings: { enabled: false } });
    res = await call('PATCH', `/${f.id}`, {
      settings: { notifications: { autoresponse: { enabled: true, text: 'Thanks!' } } },
    });
    expect(res.body.settings).toMatchObject({
      enabled: false,
      honeypotField: 'hp',
      notifications: {
        enabled: true,
        emails,
        subject: '{{form}}: new',
        autoresponse: { enabled: true, text: 'Thanks!' },
      },
    });
    for (const bad of [{ emails: ['not an address'] }, { subject: 'a'.repeat(201) }, { emails: 'x@example.com' }]) {
      const refused = await call('PATCH', `/${f.id}`, { settings: { notifications: bad } });
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    await eventually(() => {
      const last = events.form
        .map((m) => decodeEvent(Topics.formsForm, m.value))
        .filter((e) => e.type === 'form.upserted' && e.data.id === f.id)
        .at(-1);
      expect(last?.type === 'form.upserted' && last.data.settings.notifications.autoresponse.text).toBe('Thanks!');
    });
  });

  it('deletes a form: form.deleted is published, its submissions and files are purged, late ones dropped with theirs', async () => {
    const f = (await call('POST', '', { name: 'Doomed' })).body as Form & { key: string };
    const stored = await putBlob();
    const first = receive(f, [stored]);
    await bus.publish(Topics.ingestSubmission, [first.message]);
    await eventually(async () => expect((await call('GET', `/${f.id}`)).body.submissionCount).toBe(1));

    expect((await call('DELETE', `/${f.id}`)).status).toBe(204);
    expect((await call('GET', `/${f.id}`)).status).toBe(404);
    await eventually(() =>
      expect(
        events.form
          .map((m) => decodeEvent(Topics.formsForm, m.value))
          .filter((e) => e.type === 'form.deleted' && e.data.formId === f.id)
          .map((e) => e.data),
      ).toEqual([{ formId: f.id, orgId, key: f.key, version: 2 }]),
    );
    expect(await blobs.get(stored)).toBeNull();
    expect(await stores.submissions.getSubmission({ orgId }, f.id, first.submissionId)).toBeNull();
    expect(await stores.forms.listFormBlobKeys(f.id)).toEqual([]);

    const lateBlob = await putBlob();
    const late = receive(f, [lateBlob]);
    await bus.publish(Topics.ingestSubmission, [late.message]);
    await eventually(async () => expect(await blobs.get(lateBlob)).toBeNull());
    expect(await stores.submissions.getSubmission({ orgId }, f.id, late.submissionId)).toBeNull();
    expect(await stores.forms.listUnpublishedDeletions(100)).toEqual([]);
  });
});

describe('the submissions projection racing a form deletion', () => {
  it('purges what it stored for a form deleted while the batch was being stored', async () => {
    const { createSubmissionReceivedHandler } = await import('../src/handlers/submission-received.handler.ts');
    const { purgeDeletedForm } = await import('../src/use-cases/delete-form.ts');
    const stores = openSqliteFormsStores();
    const blobs = createSqliteBlobStore(openSqlite(':memory:'));
    const now = new Date().toISOString();
    const scope = { orgId: 'org-race' };
    const f: Form = {
      id: randomUUID(),
      orgId: scope.orgId,
      name: 'Race',
      slug: 'race',
      key: 'race-key',
      settings: DEFAULT_FORM_SETTINGS,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await stores.forms.insertForm(f);
    // The deletion and its purge land after the projection saw the form, before its batch is stored.
    const racing = {
      async insertSubmissions(records: SubmissionRecord[]) {
        await stores.forms.deleteForm(scope, f.id);
        await purgeDeletedForm({ forms: stores.forms, blobs }, f.id);
        return stores.submissions.insertSubmissions(records);
      },
    };
    const handle = createSubmissionReceivedHandler({
      forms: stores.forms,
      submissions: racing,
      blobs,
      privacy: testPrivacyKeys(),
    });
    const value = encodeEvent(Topics.ingestSubmission, {
      id: randomUUID(),
      type: 'submission.received',
      version: 1,
      occurredAt: now,
      data: {
        submissionId: randomUUID(),
        formId: f.id,
        orgId: scope.orgId,
        receivedAt: now,
        fields: [],
        files: [{ field: 'f', blobKey: 'race_blob_key', filename: 'x', contentType: 'text/plain', size: 1 }],
        meta: {},
        spam: { isSpam: false, reasons: [] },
        held: false,
      },
    });
    await handle([
      {
        headers: {},
        timestamp: Date.now(),
        topic: Topics.ingestSubmission,
        key: f.id,
        partition: 0,
        offset: '0',
        value,
      },
    ]);
    expect(await stores.submissions.countSubmissions(scope, f.id)).toBe(0);
    expect(await stores.forms.listFormBlobKeys(f.id)).toEqual([]);
    expect((await stores.submissions.getFormCounts(scope, [f.id])).size).toBe(0);
  });
});
