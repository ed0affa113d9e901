import type { BusMessage } from '@formgate/bus';
import { DEFAULT_FORM_SETTINGS, encodeEvent, type Form, Topics } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { createFormsView } from '../src/views/forms-view.ts';

const record = (value: string, offset: number): BusMessage => ({
  topic: Topics.formsForm,
  partition: 0,
  offset: String(offset),
  key: 'form-1',
  headers: {},
  timestamp: 0,
  value,
});
const envelope = { version: 1 as const, occurredAt: new Date(0).toISOString() };
const upserted = (version: number, key = 'key-1'): BusMessage => {
  const form: Form = {
    id: 'form-1',
    orgId: 'org-1',
    name: `Contact v${version}`,
    slug: 'contact',
    key,
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: envelope.occurredAt,
    updatedAt: envelope.occurredAt,
    version,
  };
  return record(
    encodeEvent(Topics.formsForm, { id: `u${version}`, type: 'form.upserted', ...envelope, data: form }),
    version,
  );
};
const deleted = (version: number): BusMessage =>
  record(
    encodeEvent(Topics.formsForm, {
      id: `d${version}`,
      type: 'form.deleted',
      ...envelope,
      data: { formId: 'form-1', orgId: 'org-1', key: 'key-1', version },
    }),
    version,
  );

describe('ingest’s forms view', () => {
  it('keeps the highest version by key, whatever the order', () => {
    const view = createFormsView();
    view.apply(upserted(2));
    view.apply(upserted(1));
    expect(view.lookup('key-1')).toMatchObject({ name: 'Contact v2' });
    view.apply(deleted(3));
    expect(view.lookup('key-1')).toBe('deleted');
    expect(view.lookup('key-unknown')).toBeUndefined();
  });

  it('settles by form id: a wait resolves once the version (or a later one, a deletion too) is applied', async () => {
    const view = createFormsView();
    view.apply(upserted(1));
    expect(await view.until('form-1', 1, 10)).toBe(true);
    const second = view.until('form-1', 2, 5_000);
    const third = view.until('form-1', 3, 5_000);
    view.apply(upserted(2, 'key-rotated'));
    expect(await second).toBe(true);
    view.apply(deleted(3));
    expect(await third).toBe(true);
    expect(await view.until('form-1', 4, 20)).toBe(false);
    expect(await view.until('form-unknown', 1, 20)).toBe(false);
  });
});
