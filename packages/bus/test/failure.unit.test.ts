import { readFileSync } from 'node:fs';
import { AppError, classifyFailure, decodeEvent, Topics } from '@formgate/contracts';
import Database from 'better-sqlite3';
import {
  MongoBulkWriteError,
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { BusUnavailableError } from '../src/event-bus.ts';

const thrownBy = (run: () => unknown): unknown => {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('did not throw');
};
const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:27017`), { code });
const named = (name: string) => Object.assign(new Error(name), { name });

describe('classifyFailure', () => {
  it('permanent: an AppError (retryable false), a ZodError from decoding an event, a JSON SyntaxError', () => {
    expect(classifyFailure(new AppError('EVENT_INVALID'))).toBe('permanent');
    expect(classifyFailure(thrownBy(() => decodeEvent(Topics.ingestSubmission, '{"type":"nope"}')))).toBe('permanent');
    expect(classifyFailure(thrownBy(() => decodeEvent(Topics.ingestSubmission, 'not json')))).toBe('permanent');
    expect(classifyFailure(Object.assign(new Error('x'), { retryable: false }))).toBe('permanent');
  });

  it('transient: retryable true, the bus unavailable, Node network codes', () => {
    expect(classifyFailure(new AppError('UPSTREAM_UNAVAILABLE'))).toBe('transient');
    expect(classifyFailure(new BusUnavailableError('event log is overloaded'))).toBe('transient');
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']) {
      expect(classifyFailure(systemError(code)), code).toBe('transient');
    }
  });

  it('transient: MongoDB driver errors that mean the server cannot be reached, and transient labels', () => {
    const errors = [
      new MongoNetworkError('socket closed'),
      new MongoNetworkTimeoutError('timed out'),
      new MongoNotConnectedError('not connected'),
      new MongoTopologyClosedError(),
      new MongoServerSelectionError('no server', {} as never),
      named('MongoPoolClearedError'),
      named('MongooseServerSelectionError'),
      new MongoServerError({ message: 'shutting down', code: 91, errorLabels: ['RetryableWriteError'] }),
      new MongoServerError({ message: 'conflict', code: 112, errorLabels: ['TransientTransactionError'] }),
      Object.assign(new Error('from JSON'), { errorLabels: ['RetryableWriteError'] }),
    ];
    for (const err of errors) expect(classifyFailure(err), (err as Error).message).toBe('transient');
    expect(classifyFailure(new MongoServerError({ message: 'bad query', code: 2 }))).toBe('unknown');
  });

  it('transient: SQLite busy or locked, extended codes included', () => {
    expect(classifyFailure(new Database.SqliteError('database is locked', 'SQLITE_BUSY'))).toBe('transient');
    expect(classifyFailure(new Database.SqliteError('locked', 'SQLITE_LOCKED_SHAREDCACHE'))).toBe('transient');
    expect(classifyFailure(new Database.SqliteError('constraint', 'SQLITE_CONSTRAINT_UNIQUE'))).toBe('unknown');
  });

  it('transient: the SQLite file full, failing or gone (the disk, not the record)', () => {
    for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_CANTOPEN']) {
      expect(classifyFailure(new Database.SqliteError('disk', code)), code).toBe('transient');
    }
  });

  /** Answers recorded from FerretDB 1.24.2 while its PostgreSQL was killed, stopped or starting again. */
  const recorded = JSON.parse(
    readFileSync(new URL('./fixtures/ferretdb-storage-down.json', import.meta.url), 'utf8'),
  ) as {
    recorded: string;
    op: string;
    name: string;
    code: number;
    codeName: string;
    message: string;
  }[];

  it.each(recorded)('transient: $recorded — $op', ({ name, code, codeName, message }) => {
    const err =
      name === 'MongoBulkWriteError'
        ? new MongoBulkWriteError({ message, code, writeErrors: [] }, {} as never)
        : new MongoServerError({ message, code, codeName });
    expect(err.name).toBe(name);
    expect(classifyFailure(err)).toBe('transient');
  });

  it('transient: MongoDB replica-set states that cannot take the operation now (from its error codes list)', () => {
    const server = (code: number, codeName: string) => new MongoServerError({ message: codeName, code, codeName });
    const errors = [
      server(10107, 'NotWritablePrimary'),
      server(13435, 'NotPrimaryNoSecondaryOk'),
      server(13436, 'NotPrimaryOrSecondary'),
      server(189, 'PrimarySteppedDown'),
      server(91, 'ShutdownInProgress'),
      server(11600, 'InterruptedAtShutdown'),
      server(11602, 'InterruptedDueToReplStateChange'),
      server(6, 'HostUnreachable'),
      server(89, 'NetworkTimeout'),
      server(9001, 'SocketException'),
      server(262, 'ExceededTimeLimit'),
      new MongoWriteConcernError({
        writeConcernError: { errmsg: 'waiting for replication timed out', code: 64, errInfo: { wtimeout: true } },
      } as never),
      Object.assign(new MongoServerError({ message: 'write concern', code: 0 }), {
        writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
      }),
      new MongoServerError({ message: 'pool reset', code: 0, errorLabels: ['ResetPool'] }),
      new MongoServerError({
        message: 'overloaded',
        code: 0,
        errorLabels: ['SystemOverloadedError', 'RetryableError'],
      }),
      named('MongoWaitQueueTimeoutError'),
      named('MongoServerClosedError'),
    ];
    for (const err of errors) expect(classifyFailure(err), (err as Error).message).toBe('transient');
  });

  it('unknown: a server error about the query, FerretDB errors that do not name its storage, codes off Mongo errors', () => {
    const errors = [
      new MongoServerError({ message: 'unknown operator: $foo', code: 2, codeName: 'BadValue' }),
      new MongoServerError({ message: 'unexpected nested array', code: 1, codeName: 'InternalError' }),
      new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 }),
      Object.assign(new Error('another library'), { code: 91 }),
      Object.assign(new Error('failed to connect to `x`'), { code: 1 }),
    ];
    for (const err of errors) expect(classifyFailure(err), (err as Error).message).toBe('unknown');
  });

  it('follows the cause chain; the outermost error that says anything decides', () => {
    const network = new MongoNetworkError('socket closed');
    expect(classifyFailure(new Error('saving the submission failed', { cause: network }))).toBe('transient');
    expect(classifyFailure(new Error('a', { cause: new Error('b', { cause: systemError('ECONNRESET') }) }))).toBe(
      'transient',
    );
    const parse = thrownBy(() => decodeEvent(Topics.ingestSubmission, '{'));
    expect(classifyFailure(new Error('handler failed', { cause: parse }))).toBe('permanent');
    const appError = new AppError('FORMS_FORM_NOT_FOUND', undefined, { cause: network });
    expect(classifyFailure(appError)).toBe('permanent');
  });

  it('unknown: anything else, including a retryable flag that is inherited rather than its own', () => {
    class Inherits extends Error {
      get retryable() {
        return false;
      }
    }
    const cyclic: { message: string; cause?: unknown } = { message: 'cycle' };
    cyclic.cause = cyclic;
    for (const err of [
      new Error('boom'),
      new TypeError('x is undefined'),
      'a string',
      undefined,
      new Inherits(),
      cyclic,
    ]) {
      expect(classifyFailure(err)).toBe('unknown');
    }
  });
});
