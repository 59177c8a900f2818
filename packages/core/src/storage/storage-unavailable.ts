import { TRPCError, getTRPCErrorFromUnknown } from '@trpc/server';

/** What a statement on a stalled PostgreSQL connection fails with (db/postgres/statement-deadline.ts): a 503. */
export const STALLED_MESSAGE = 'Query read timeout: no answer from PostgreSQL';

/** Seconds a client is asked to wait (`Retry-After`) before trying again a request the database could not take. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/**
 * Why the database could not take a request, in the words an operator tells causes apart by: the
 * database has no connection left to give (its `max_connections`, a pooler's `max_client_conn`),
 * a wait ran past its bound (a statement cancelled, no connection free in time, a lock held), the
 * server is stopping or starting, it cannot be reached or the connection was lost, or the SQLite
 * file cannot be written.
 */
export type UnavailableWhy = 'out of connections' | 'timed out' | 'restarting' | 'unreachable' | 'not writable';

/** The cause of a 503, as its log line gives it: why, and the error's own code and message. */
export interface UnavailableCause {
  why: UnavailableWhy;
  code: string | undefined;
  message: string;
}

/** Node's errors for a server that cannot be reached, or that went away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs for "not now", each with its why: too many connections (53300, "sorry,
 * too many clients already", and the slots reserved for superusers); a statement cancelled
 * (57014: the statement deadline's cancel, or a server's `statement_timeout`); the server
 * shutting down, crashed or starting (57P01-57P03); a connection exception (class 08).
 */
const POSTGRES_CODES: [RegExp, UnavailableWhy][] = [
  [/^53300$/, 'out of connections'],
  [/^57014$/, 'timed out'],
  [/^57P0[1-3]$/, 'restarting'],
  [/^08...$/, 'unreachable'],
];

/**
 * Messages without a code of their own: PgBouncer's refusals (it answers with 08P01 whatever the
 * reason, so its message says which), pg-pool's wait for a connection, pg's lost connection, ours
 * for a stalled one. Read before the codes, so a pooler's "no more connections" is not a lost one.
 */
const MESSAGES: [RegExp, UnavailableWhy][] = [
  [/^no more connections allowed|^too many clients|remaining connection slots are reserved/, 'out of connections'],
  [new RegExp(`^(timeout exceeded when trying to connect|query_wait_timeout|${STALLED_MESSAGE})`), 'timed out'],
  [/^(Connection terminated|Client has encountered a connection error)/, 'unreachable'],
];

/**
 * SQLite's result codes for a file that cannot be used now: a lock held past `busy_timeout`, or
 * a file that cannot be written or read (read-only file, folder or file system, an I/O error, a
 * full disk).
 */
const SQLITE_CODES: [RegExp, UnavailableWhy][] = [
  [/^SQLITE_BUSY/, 'timed out'],
  [/^SQLITE_(READONLY|IOERR|CANTOPEN|FULL|PROTOCOL)/, 'not writable'],
];

const whyOf = (code: unknown, message: unknown): UnavailableWhy | undefined => {
  const text = typeof message === 'string' ? message : '';
  const byMessage = MESSAGES.find(([pattern]) => pattern.test(text));
  if (byMessage) return byMessage[1];
  if (typeof code !== 'string') return undefined;
  if (NETWORK_CODES.has(code)) return 'unreachable';
  return [...POSTGRES_CODES, ...SQLITE_CODES].find(([pattern]) => pattern.test(code))?.[1];
};

/**
 * The one place that decides whether a storage error means "the database is not available now"
 * (a 503 the client may retry) rather than a fault of ours (a 500), and why: undefined for a fault.
 * Drizzle wraps the driver's error as its `cause`, so the chain is followed.
 */
export const unavailableCause = (error: unknown): UnavailableCause | undefined => {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    const why = whyOf(code, message);
    if (why) return { why, code: typeof code === 'string' ? code : undefined, message: typeof message === 'string' ? message : String(message) };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/** Whether a storage error means "not now" (a 503) rather than a fault (a 500). */
export const isStorageUnavailable = (error: unknown): boolean => unavailableCause(error) !== undefined;

/**
 * Any error a procedure or the admission step throws, as the TRPCError its transport renders: an
 * unavailable database is SERVICE_UNAVAILABLE (503 with Retry-After), anything unknown a crash.
 * The storage error stays its `cause`, for the log line that says why.
 */
export const toTrpcError = (cause: unknown): TRPCError =>
  !(cause instanceof TRPCError) && isStorageUnavailable(cause)
    ? new TRPCError({
        code: 'SERVICE_UNAVAILABLE',
        message: `The database is not answering; try again in ${STORAGE_RETRY_AFTER_SECONDS} seconds.`,
        cause,
      })
    : getTRPCErrorFromUnknown(cause);
