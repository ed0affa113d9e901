import { randomUUID } from 'node:crypto';
import type { BusMessage } from '@formgate/bus';
import { DEFAULT_FORM_SETTINGS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { createSqliteBlobStore, openSqlite } from '@formgate/store/sqlite';
import { describe, expect, it } from 'vitest';
import { createSubmissionReceivedHandler } from '../src/handlers/submission-received.handler.ts';
import { createSqliteFormsStore } from '../src/store/sqlite-forms-store.ts';

const submission = (formId: string, orgId: string, submissionId = randomUUID()): BusMessage => ({
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
    },
  }),
});

describe('the submissions projection', () => {
  it('stores submissions of known forms once, and drops those of a form that is gone (deleted or purged)', async () => {
    const store = createSqliteFormsStore(openSqlite(':memory:'));
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
    await store.insertForm(form);
    const handle = createSubmissionReceivedHandler(store, createSqliteBlobStore(openSqlite(':memory:')));
    const kept = submission(form.id, 'org-a');
    await handle([kept, kept, submission(randomUUID(), 'org-gone')]);
    expect(await store.countSubmissions({ orgId: 'org-a' }, form.id)).toBe(1);
    await store.purgeOrganization({ orgId: 'org-a' });
    await handle([submission(form.id, 'org-a')]);
    expect(await store.countSubmissions({ orgId: 'org-a' }, form.id)).toBe(0);
    expect((await store.listSubmissions({ orgId: 'org-a' }, form.id, { limit: 10 })).length).toBe(0);
  });
});
