import { describe, expect, it } from 'vitest';
import { STALLED_MESSAGE, toTrpcError, unavailableCause } from './storage-unavailable.js';

/** An error as a driver throws it: a message, and a code when it has one. */
const failure = (message: string, code?: string) => Object.assign(new Error(message), code === undefined ? {} : { code });

describe('why the database could not take a request', () => {
  it.each([
    ['PostgreSQL out of connections', failure('sorry, too many clients already', '53300'), 'out of connections'],
    ['PgBouncer out of client connections (08P01 whatever the reason)', failure('no more connections allowed (max_client_conn)', '08P01'), 'out of connections'],
    ['a statement cancelled at its bound', failure('canceling statement due to user request', '57014'), 'timed out'],
    ['no pool connection free in time', failure('timeout exceeded when trying to connect'), 'timed out'],
    ['PgBouncer finding no server connection in time', failure('query_wait_timeout', '08P01'), 'timed out'],
    ['a stalled connection', failure(STALLED_MESSAGE), 'timed out'],
    ['SQLite locked past busy_timeout', failure('database is locked', 'SQLITE_BUSY'), 'timed out'],
    ['the server shutting down', failure('terminating connection due to administrator command', '57P01'), 'restarting'],
    ['the server starting', failure('the database system is starting up', '57P03'), 'restarting'],
    ['a refused connection', failure('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), 'unreachable'],
    ['a lost connection', failure('Connection terminated unexpectedly'), 'unreachable'],
    ['a connection exception', failure('server closed the connection', '08006'), 'unreachable'],
    ['a read-only SQLite file', failure('attempt to write a readonly database', 'SQLITE_READONLY'), 'not writable'],
    ['a full disk', failure('database or disk is full', 'SQLITE_FULL'), 'not writable'],
  ])('%s: %s', (_, error, why) => {
    expect(unavailableCause(error)).toEqual({ why, code: (error as { code?: string }).code, message: error.message });
    // Drizzle wraps the driver's error as its cause.
    expect(unavailableCause(new Error('Failed query: select 1', { cause: error }))?.why).toBe(why);
  });

  it('is nothing for a fault of the service: a 500', () => {
    expect(unavailableCause(failure('syntax error at or near "selec"', '42601'))).toBeUndefined();
    expect(unavailableCause(new TypeError('x is undefined'))).toBeUndefined();
    expect(toTrpcError(failure('duplicate key value', '23505')).code).toBe('INTERNAL_SERVER_ERROR');
  });

  it('answers an unavailable database as SERVICE_UNAVAILABLE, the storage error kept as its cause for the log', () => {
    const cause = failure('sorry, too many clients already', '53300');
    const error = toTrpcError(cause);
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.cause).toBe(cause);
  });
});
