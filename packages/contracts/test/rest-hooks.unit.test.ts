import { describe, expect, it } from 'vitest';
import { buildRestHookBody, RestHookBodySchema, restHookFields } from '../src/rest-hooks.ts';

const form = { id: 'frm_1', name: 'Contact' };
const submission = { id: 'sub_1', createdAt: '2026-11-30T12:00:00.000Z' };

describe('REST hook bodies', () => {
  it('maps each field name to its value, and a repeated name to its values in order', () => {
    const fields = restHookFields([
      { name: 'topic', value: 'sales' },
      { name: 'email', value: 'ann@example.com' },
      { name: 'topic', value: 'support' },
      { name: 'topic', value: '' },
    ]);
    expect(fields).toEqual({ topic: ['sales', 'support', ''], email: 'ann@example.com' });
  });

  it('keeps names such as __proto__ and constructor as data', () => {
    const fields = restHookFields([
      { name: '__proto__', value: 'x' },
      { name: 'constructor', value: 'y' },
    ]);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(JSON.parse(JSON.stringify(fields))).toEqual(JSON.parse('{"__proto__":"x","constructor":"y"}'));
  });

  it('lists files by name, type and size, never by their storage key', () => {
    // A stored file, as notifications and forms hold it.
    const files = [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 8, blobKey: 'secret' }];
    const content = { fields: [{ name: 'a', value: '1' }], files };
    const body = buildRestHookBody({ event: 'submission.created', form, submission, content });
    expect(RestHookBodySchema.strict().parse(body)).toEqual({
      id: 'sub_1',
      event: 'submission.created',
      createdAt: submission.createdAt,
      form,
      fields: { a: '1' },
      files: [{ field: 'cv', filename: 'cv.pdf', contentType: 'application/pdf', size: 8 }],
    });
    expect(JSON.stringify(body)).not.toContain('secret');
  });

  it('carries no content for a deletion', () => {
    const body = buildRestHookBody({ event: 'submission.deleted', form, submission, content: null });
    expect(body).toEqual({ ...submission, event: 'submission.deleted', form, fields: {}, files: [] });
  });
});
