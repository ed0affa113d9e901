import { randomUUID } from 'node:crypto';
import { DEFAULT_FORM_SETTINGS, type Form } from '@formgate/contracts';
import type { SubmissionRecord } from '../src/store/records.ts';

export const org = () => ({ orgId: `org_${randomUUID()}` });

export function form(orgId: string, overrides: Partial<Form> = {}): Form {
  const id = randomUUID();
  return {
    id,
    orgId,
    name: 'Contact',
    slug: `contact-${id.slice(0, 6)}`,
    key: id.replaceAll('-', '').slice(0, 12),
    settings: DEFAULT_FORM_SETTINGS,
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    version: 1,
    ...overrides,
  };
}

export function submission(f: Form, createdAt: string, overrides: Partial<SubmissionRecord> = {}): SubmissionRecord {
  return {
    id: randomUUID(),
    formId: f.id,
    orgId: f.orgId,
    createdAt,
    fields: [{ name: 'email', value: 'a@example.com' }],
    files: [],
    spam: { isSpam: false, reasons: [] },
    held: false,
    ...overrides,
  };
}
