import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, type ErrorCode } from '../src/errors.ts';

const docs = ['docs/api.md', 'docs/ingest.md']
  .map((f) => readFileSync(resolve(import.meta.dirname, '../../..', f), 'utf8'))
  .join('\n');

describe('the error catalogue', () => {
  it('documents every code in docs/api.md or docs/ingest.md', () => {
    const undocumented = Object.keys(ERROR_CODES).filter((code) => !docs.includes(`\`${code}\``));
    expect(undocumented).toEqual([]);
  });

  it('names codes in UPPER_SNAKE and gives every code an HTTP error status and a message', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      expect(spec.status).toBeGreaterThanOrEqual(400);
      expect(spec.status).toBeLessThan(600);
      expect(spec.message.length).toBeGreaterThan(0);
    }
  });

  it('builds an AppError from the registry, with an optional specific message, field and cause', () => {
    const cause = new Error('connect ECONNREFUSED');
    const err = new AppError('UNAVAILABLE', undefined, { cause });
    expect(err).toMatchObject({ code: 'UNAVAILABLE', status: 503, retryable: true, retryAfterSeconds: 2 });
    expect(err.message).toBe(ERROR_CODES.UNAVAILABLE.message);
    expect(err.cause).toBe(cause);
    const specific = new AppError('FIELD_VALUE_TOO_LONG', 'The value exceeds 10 bytes', { field: 'bio' });
    expect(specific).toMatchObject({
      status: 413,
      retryable: false,
      field: 'bio',
      message: 'The value exceeds 10 bytes',
    });
  });

  it('marks the failures of a dependency as retryable and a bad record as not', () => {
    const retryable = (code: ErrorCode) => new AppError(code).retryable;
    expect(
      ['UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'AUTH_UNAVAILABLE', 'UPSTREAM_TIMEOUT'].map((c) =>
        retryable(c as ErrorCode),
      ),
    ).toEqual([true, true, true, true]);
    expect(retryable('EVENT_INVALID')).toBe(false);
  });
});
