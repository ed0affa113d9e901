import { DEFAULT_FORM_NOTIFICATIONS } from '@formgate/contracts';
import { createFileLinks } from '@formgate/kit';
import { describe, expect, it } from 'vitest';
import { createEmailComposer } from '../src/email/composer.ts';
import type { FormView } from '../src/store/index.ts';
import { submission } from './email-fixtures.ts';

const form: FormView = {
  id: 'f_1',
  orgId: 'o_1',
  name: 'Contact',
  slug: 'contact',
  notifications: { ...DEFAULT_FORM_NOTIFICATIONS, enabled: true, emails: ['a@example.com', 'b@example.com'] },
  version: 1,
};
const file = { field: 'cv', filename: 'cv.pdf', size: 10, contentType: 'application/pdf', blobKey: 'k1' };

function composer() {
  let now = Date.parse('2026-11-23T10:00:00.000Z');
  const compose = createEmailComposer({
    fileLinks: createFileLinks('x'.repeat(32)),
    clock: { now: () => new Date(now) },
  });
  return { compose, advance: (ms: number) => (now += ms) };
}

describe('the email composer', () => {
  it("renders a submission's notification once for all its recipients, each with its own To and Message-ID", async () => {
    const { compose, advance } = composer();
    const input = { form, submission: submission({ files: [file] }), publicUrl: 'https://app.formgate.test' };
    const a = await compose.notification({ ...input, to: 'a@example.com' });
    advance(5_000);
    const b = await compose.notification({ ...input, to: 'b@example.com' });
    expect([a.to, b.to]).toEqual(['a@example.com', 'b@example.com']);
    expect(a.messageId).not.toBe(b.messageId);
    // The same render: even the file link signed at the first one's time.
    expect(b.html).toBe(a.html);
    expect(b.text).toBe(a.text);
    const resent = await compose.notification({ ...input, to: 'a@example.com', resendId: 'd_9' });
    expect(resent.messageId).not.toBe(a.messageId);
    expect(resent.html).toBe(a.html);
  });

  it('renders again after a minute (fresh file links) and for a new version of the form', async () => {
    const { compose, advance } = composer();
    const input = { form, submission: submission({ files: [file] }), publicUrl: 'https://app.formgate.test' };
    const first = await compose.notification({ ...input, to: 'a@example.com' });
    advance(61_000);
    const later = await compose.notification({ ...input, to: 'a@example.com' });
    expect(later.html).not.toBe(first.html);
    expect(later.messageId).toBe(first.messageId);
    const renamed = await compose.notification({
      ...input,
      form: { ...form, name: 'Quotes', version: 2 },
      to: 'a@example.com',
    });
    expect(renamed.subject).toContain('Quotes');
    expect(renamed.html).toContain('Quotes');
  });
});
