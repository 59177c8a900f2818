import { TRPCError, getTRPCErrorFromUnknown } from '@trpc/server';

/** What a statement on a stalled PostgreSQL connection fails with (db/postgres/stalled-connections.ts): a 503. */
export const STALLED_MESSAGE = 'Query read timeout: no answer from PostgreSQL';

/** Seconds a client is asked to wait (`Retry-After`) before trying again a request the database could not take. */
export const STORAGE_RETRY_AFTER_SECONDS = 5;

/** Node's errors for a server that cannot be reached, or that went away. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * PostgreSQL's SQLSTATEs for "not now": connection exceptions (class 08), too many connections,
 * the server shutting down or starting, a statement cancelled by `statement_timeout`.
 */
const POSTGRES_UNAVAILABLE = /^(08...|53300|57P0[1-3]|57014)$/;

/** pg's and pg-pool's own errors when a connection cannot be had or was lost, and ours for one that stalled. */
const POSTGRES_MESSAGES = new RegExp(
  `^(timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|${STALLED_MESSAGE})`,
);

/**
 * SQLite's result codes for a file that cannot be written or read now: read-only (the file, its
 * folder, the file system), an I/O error, a full disk, a lock held past `busy_timeout`.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(READONLY|IOERR|CANTOPEN|FULL|BUSY|PROTOCOL)/;

const unavailableItself = (error: object): boolean => {
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code) || SQLITE_UNAVAILABLE.test(code))) return true;
  return typeof message === 'string' && POSTGRES_MESSAGES.test(message);
};

/**
 * The one place that decides whether a storage error means "the database is not available now"
 * (a 503 the client may retry) rather than a fault of ours (a 500). Drizzle wraps the driver's
 * error as its `cause`, so the chain is followed.
 */
export const isStorageUnavailable = (error: unknown): boolean => {
  for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 5; depth++) {
    if (unavailableItself(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
};

/**
 * Any error a procedure or the admission step throws, as the TRPCError its transport renders: an
 * unavailable database is SERVICE_UNAVAILABLE (503 with Retry-After), anything unknown a crash.
 */
export const toTrpcError = (cause: unknown): TRPCError =>
  !(cause instanceof TRPCError) && isStorageUnavailable(cause)
    ? new TRPCError({
        code: 'SERVICE_UNAVAILABLE',
        message: `The database is not answering; try again in ${STORAGE_RETRY_AFTER_SECONDS} seconds.`,
        cause,
      })
    : getTRPCErrorFromUnknown(cause);
