import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseRetryAfter } from '../src/errors.ts';

const answer = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });

describe("FormgateError from each of Formgate's error bodies", () => {
  it('the API envelope: code, message, requestId, details, Retry-After', async () => {
    const err = await errorFromResponse(
      answer(
        400,
        JSON.stringify({
          error: {
            code: 'VALIDATION_FAILED',
            message: 'Invalid request',
            requestId: 'r1',
            details: [{ path: ['name'] }],
          },
        }),
        { 'retry-after': '7' },
      ),
    );
    expect([err.status, err.code, err.message, err.requestId, err.retryAfterSeconds]).toEqual([
      400,
      'VALIDATION_FAILED',
      'Invalid request',
      'r1',
      7,
    ]);
    expect(err.details).toEqual([{ path: ['name'] }]);
    expect(err.issues).toEqual([]);
  });

  it("the public endpoint's Formspree format: the first problem's code, every problem by field", async () => {
    const errors = [
      { code: 'INVALID_CHARACTER', message: 'bad', field: 'a' },
      { code: 'FIELD_VALUE_TOO_LONG', message: 'long', field: 'a' },
      { code: 'EMPTY', message: 'none' },
    ];
    const err = await errorFromResponse(answer(400, JSON.stringify({ error: 'Not accepted', errors })));
    expect([err.code, err.message]).toEqual(['INVALID_CHARACTER', 'Not accepted']);
    expect(err.issues).toHaveLength(3);
    expect(err.fieldErrors).toEqual({ a: errors.slice(0, 2) });
  });

  it("better-auth's {code, message}; anything else is UNEXPECTED_RESPONSE with its status", async () => {
    const auth = await errorFromResponse(answer(503, JSON.stringify({ code: 'AUTH_UNAVAILABLE', message: 'later' })));
    expect([auth.status, auth.code, auth.message]).toEqual([503, 'AUTH_UNAVAILABLE', 'later']);
    const html = await errorFromResponse(new Response('<h1>Bad gateway</h1>', { status: 502 }));
    expect([html.status, html.code, html.message]).toEqual([502, 'UNEXPECTED_RESPONSE', 'HTTP 502']);
  });

  it('Retry-After: seconds or an HTTP date; junk is ignored', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('12', now)).toBe(12);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
