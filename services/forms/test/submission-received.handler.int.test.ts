import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@formgate/bus';
import { DEFAULT_FORM_SETTINGS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { testPrivacyKeys } from '@formgate/kit/testing';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSubmissionReceivedHandler } from '../src/handlers/submission-received.handler.ts';
import { openSqliteFormsStores } from './sqlite-stores.ts';

const submission = (
  formId: string,
  orgId: string,
  submissionId: string = randomUUID(),
  source: { origin?: string; referer?: string } = {},
): BusMessage => ({
  headers: {},
  timestamp: Date.now(),
  topic: Topics.ingestSubmission,
  key: formId,
  partition: 0,
  offset: '0',
  value: encodeEvent(Topics.ingestSubmission, {
    id: randomUUID(),
    type: 'submission.received',
    version: 1,
    occurredAt: new Date().toISOString(),
    data: {
      submissionId,
      formId,
      orgId,
      receivedAt: new Date().toISOString(),
      fields: [{ name: 'a', value: '1' }],
      files: [],
      meta: {},
      spam: { isSpam: false, reasons: [] },
      held: false,
      ...source,
    },
  }),
});

describe('the submissions projection', () => {
  it('stores submissions of known forms once, and drops those of a form that is gone (deleted or purged)', async () => {
    const stores = openSqliteFormsStores();
    const now = new Date().toISOString();
    const form: Form = {
      id: randomUUID(),
      orgId: 'org-a',
      name: 'C',
      slug: 'c',
      key: 'k1',
      settings: DEFAULT_FORM_SETTINGS,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await stores.forms.insertForm(form);
    const handle = createSubmissionReceivedHandler({
      ...stores,
      blobs: createSqliteBlobStore(openSqlite(':memory:')),
      privacy: testPrivacyKeys(),
    });
    const kept = submission(form.id, 'org-a');
    await handle([kept, kept, submission(randomUUID(), 'org-gone')]);
    expect(await stores.submissions.countSubmissions({ orgId: 'org-a' }, form.id)).toBe(1);
    await stores.forms.purgeOrganization({ orgId: 'org-a' });
    await handle([submission(form.id, 'org-a')]);
    expect(await stores.submissions.countSubmissions({ orgId: 'org-a' }, form.id)).toBe(0);
    expect((await stores.submissions.listSubmissions({ orgId: 'org-a' }, form.id, { limit: 10 })).length).toBe(0);
  });

  it('stores the origin and referer an event carries, and none for an event from before they were recorded', async () => {
    const stores = openSqliteFormsStores();
    const now = new Date().toISOString();
    const form: Form = {
      id: randomUUID(),
      orgId: 'org-a',
      name: 'C',
      slug: 'c',
      key: 'k1',
      settings: DEFAULT_FORM_SETTINGS,
      createdAt: now,
      updatedAt: now,
      version: 1,
    };
    await stores.forms.insertForm(form);
    const handle = createSubmissionReceivedHandler({
      ...stores,
      blobs: createSqliteBlobStore(openSqlite(':memory:')),
      privacy: testPrivacyKeys(),
    });
    const source = { origin: 'https://shop.example', referer: 'https://shop.example/contact?x=1' };
    const withSource = submission(form.id, 'org-a', 's-new', source);
    // An event as ingest wrote it before these fields existed: the raw JSON has no such keys.
    const old = submission(form.id, 'org-a', 's-old');
    expect(old.value).not.toContain('origin');
    await handle([withSource, old]);
    const scope = { orgId: 'org-a' };
    expect(await stores.submissions.getSubmission(scope, form.id, 's-new')).toMatchObject(source);
    const legacy = await stores.submissions.getSubmission(scope, form.id, 's-old');
    expect(legacy?.fields).toEqual([{ name: 'a', value: '1' }]);
    expect(legacy).not.toHaveProperty('origin');
    expect(legacy).not.toHaveProperty('referer');
  });
});
