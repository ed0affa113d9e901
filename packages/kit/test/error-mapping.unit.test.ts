import { describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { AppError } from '../src/errors.ts';
import { createServiceApp, errorHandler, toAppError } from '../src/http.ts';
import { closeServer, createHttpServer, listen } from '../src/http-server.ts';
import { createLogger } from '../src/logger.ts';
import type { StoreHealth } from '../src/store-health.ts';

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

describe('errorHandler with the process’s store health', () => {
  const serve = async (health: StoreHealth | undefined, thrown: unknown) => {
    const app = createServiceApp();
    app.get('/boom', () => {
      throw thrown;
    });
    app.use(errorHandler(createLogger({ level: 'silent', name: 'test' }), health));
    const server = createHttpServer(app);
    const port = await listen(server, 0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/boom`);
      const body = (await res.json()) as { error: { code: string } };
      return { status: res.status, code: body.error.code, retryAfter: res.headers.get('retry-after') };
    } finally {
      await closeServer(server);
    }
  };
  const health = (ok: boolean): StoreHealth => ({ register() {}, healthy: async () => ok });
  // FerretDB's answer with its PostgreSQL down, reworded so that nothing in the error itself says "outage".
  const unknownStoreError = Object.assign(new Error('backend gone'), { name: 'MongoServerError', code: 1 });

  it('answers an unknown error 503 STORE_UNAVAILABLE with Retry-After while a store does not answer', async () => {
    expect(await serve(health(false), unknownStoreError)).toEqual({
      status: 503,
      code: 'STORE_UNAVAILABLE',
      retryAfter: expect.any(String),
    });
  });

  it('keeps a bug a 500 INTERNAL while the stores answer, and known errors as they are', async () => {
    expect(await serve(health(true), new TypeError('x is undefined'))).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(await serve(health(false), new AppError('FORMS_FORM_NOT_FOUND'))).toMatchObject({ status: 404 });
    expect(await serve(undefined, unknownStoreError)).toMatchObject({ status: 500, code: 'INTERNAL' });
  });
});
