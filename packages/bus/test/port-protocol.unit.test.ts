import { classifyFailure } from '@formgate/contracts';
import { describe, expect, it } from 'vitest';
import { BusUnavailableError } from '../src/event-bus.ts';
import { fromWire, toWire } from '../src/port/protocol.ts';

const errors: [string, unknown][] = [
  ['a network error', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), { code: 'ECONNREFUSED' })],
  ['an error wrapping a busy SQLite file', new Error('projection failed', { cause: { code: 'SQLITE_BUSY' } })],
  ['an AppError marked retryable', Object.assign(new Error('upstream timed out'), { retryable: true })],
  ['an AppError marked not retryable', Object.assign(new Error('invalid payload'), { retryable: false })],
  ['a ZodError', Object.assign(new Error('formId: Required'), { name: 'ZodError', issues: [] })],
  ['a JSON SyntaxError', new SyntaxError('Unexpected token } in JSON at position 3')],
  ['a BusUnavailableError', new BusUnavailableError('event log is overloaded')],
  ['a plain Error', new Error('cannot handle')],
  ['a thrown string', 'not an error'],
];

describe('bus port: errors across the port', () => {
  it.each(errors)('%s is rebuilt with its message and classified as before', (_, err) => {
    const rebuilt = fromWire(structuredClone(toWire(err)));
    expect(rebuilt).toBeInstanceOf(Error);
    expect(rebuilt.message).toBe(String((err as Error).message ?? err));
    expect(classifyFailure(rebuilt)).toBe(classifyFailure(err));
  });

  it('a BusUnavailableError stays one; other errors do not become one', () => {
    expect(fromWire(toWire(new BusUnavailableError('down')))).toBeInstanceOf(BusUnavailableError);
    expect(fromWire(toWire(new Error('unknown topic t')))).not.toBeInstanceOf(BusUnavailableError);
  });
});
