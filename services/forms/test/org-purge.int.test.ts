import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { BusMessage, EventBus, Subscription } from '@formgate/bus';
import { createSqliteBus } from '@formgate/bus/sqlite';
import { DEFAULT_FORM_SETTINGS, decodeEvent, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { createIdentityCodec, createLogger, type Service, systemClock, systemIds } from '@formgate/kit';
import { eventually, testPrivacyKeys } from '@formgate/kit/testing';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormsService } from '../src/create-service.ts';
import type { FormsStores } from '../src/store/forms-stores.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

function form(orgId: string, version = 1): Form {
  const id = randomUUID();
  const now = new Date().toISOString();
  return {
    id,
    orgId,
    name: 'Contact',
    slug: `contact-${id.slice(0, 8)}`,
    key: id.replaceAll('-', '').slice(0, 12),
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: now,
    updatedAt: now,
    version,
  };
}

const organizationDeleted = (orgId: string) =>
  encodeEvent(Topics.orgsOrganization, {
    id: randomUUID(),
    type: 'organization.deleted',
    version: 1,
    occurredAt: new Date().toISOString(),
    data: { orgId, actor: { userId: 'user_1', email: null }, name: 'Acme', slug: 'acme' },
  });

describe('forms.org-purge consumer on the embedded log', () => {
  let dir: string;
  let bus: EventBus;
  let stores: FormsStores;
  let service: Service;
  let follower: Subscription;
  const formEvents: BusMessage[] = [];
  const deletedIds = () =>
    formEvents.flatMap((m) => {
      const e = decodeEvent(Topics.formsForm, m.value);
      return e.type === 'form.deleted' ? [e.data] : [];
    });

  const blobs = createSqliteBlobStore(openSqlite(':memory:'));
  const putBlob = async () => {
    const key = `blob_${randomUUID().replaceAll('-', '')}`;
    await blobs.put(key, Readable.from([Buffer.from('x')]), { contentType: 'text/plain', filename: 'x' }, 10);
    return key;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-forms-purge-'));
    bus = createSqliteBus(openSqlite(join(dir, 'bus.db')));
    stores = openSqliteFormsStores();
    service = createFormsService({
      stores,
      privacy: testPrivacyKeys(),
      blobs,
      bus,
      clock: systemClock,
      ids: systemIds,
      logger: createLogger({ level: 'silent', name: 'forms' }),
      identity: createIdentityCodec(randomBytes(32).toString('base64url')),
    });
    await service.start();
    follower = await bus.replay(Topics.formsForm, (m) => void formEvents.push(m));
  });
  afterAll(async () => {
    await follower.stop();
    await service.stop();
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('deletes the organization’s forms and submissions once, and publishes form.deleted for each form', async () => {
    const orgId = `org_${randomUUID()}`;
    const otherOrg = `org_${randomUUID()}`;
    const doomed = [form(orgId), form(orgId, 4)];
    const kept = form(otherOrg);
    const files = new Map<string, string>();
    for (const f of [...doomed, kept]) {
      await stores.forms.insertForm(f);
      const blobKey = await putBlob();
      files.set(f.id, blobKey);
      const withFile = {
        ...submission(f),
        files: [{ field: 'f', blobKey, filename: 'x', contentType: 'text/plain', size: 1 }],
      };
      await stores.submissions.insertSubmissions([withFile, submission(f)]);
    }
    const message = organizationDeleted(orgId);
    await bus.publish(Topics.orgsOrganization, [
      { key: orgId, value: message },
      { key: orgId, value: message },
    ]);

    await eventually(() =>
      expect(deletedIds()).toEqual(
        expect.arrayContaining(doomed.map((f) => ({ formId: f.id, orgId, key: f.key, version: f.version + 1 }))),
      ),
    );
    expect(deletedIds().filter((d) => d.orgId === orgId)).toHaveLength(2);
    expect(await stores.forms.listForms({ orgId })).toEqual([]);
    for (const f of doomed) {
      expect(await stores.submissions.listSubmissions({ orgId }, f.id, { limit: 10 })).toEqual([]);
      expect(await stores.submissions.countSubmissions({ orgId }, f.id)).toBe(0);
    }
    expect(await stores.forms.listUnpublishedDeletions(100)).toEqual([]);
    expect(await stores.forms.getForm({ orgId: otherOrg }, kept.id)).toEqual(kept);
    expect(await stores.submissions.countSubmissions({ orgId: otherOrg }, kept.id)).toBe(2);
    expect(deletedIds().map((d) => d.formId)).not.toContain(kept.id);
    for (const f of doomed) expect(await blobs.get(files.get(f.id) as string)).toBeNull();
    expect(await blobs.get(files.get(kept.id) as string)).not.toBeNull();
  });
});

function submission(f: Form) {
  return {
    id: randomUUID(),
    formId: f.id,
    orgId: f.orgId,
    createdAt: new Date().toISOString(),
    fields: [{ name: 'email', value: 'a@example.com' }],
    files: [],
    spam: { isSpam: false, reasons: [] },
    held: false,
  };
}
