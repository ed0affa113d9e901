import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { AppError } from '../src/errors.ts';
import { toAppError } from '../src/http.ts';

describe('toAppError: the API edge maps what was thrown to a registered code', () => {
  it('keeps an AppError as it is', () => {
    const err = new AppError('FORMS_FORM_NOT_FOUND');
    expect(toAppError(err)).toBe(err);
  });

  it('answers an unreachable database with 503 STORE_UNAVAILABLE and Retry-After, not 500', () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), {
      name: 'MongoServerSelectionError',
    });
    expect(toAppError(down)).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, retryable: true });
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(toAppError(new Error('query failed', { cause: refused }))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });

  it('maps validation and body-parser failures, and hides anything else as INTERNAL', () => {
    expect(toAppError(new ZodError([]))).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    expect(toAppError({ type: 'entity.parse.failed' })).toMatchObject({ code: 'MALFORMED_JSON' });
    expect(toAppError(new TypeError('x is undefined'))).toMatchObject({ code: 'INTERNAL', status: 500 });
  });
});
