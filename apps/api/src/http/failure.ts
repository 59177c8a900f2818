import { STORAGE_RETRY_AFTER_SECONDS, toTrpcError, unavailableCause } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { type RequestContext, type FlatHeaders, logOf } from './request-context.js';

/** How much of a request's path an error message quotes back. */
const MAX_ECHOED_PATH = 200;

const pathOf = (url: string | undefined) => {
  const path = (url ?? '/').split('?', 1)[0] ?? '';
  return path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
};

/** 404 for a path nobody serves, quoting (the start of) the path, never its query. */
export const nothingAt = (method: string | undefined, url: string | undefined): TRPCError =>
  new TRPCError({ code: 'NOT_FOUND', message: `There is nothing at ${method ?? 'GET'} ${pathOf(url)}.` });

/** The methods a path that is only read takes (HEAD is GET without the body), as `Allow` names them. */
export const READ_METHODS = 'GET, HEAD';

/** 405; its answer carries `Allow` (RFC 9110), the methods the path takes. */
export const methodNotAllowed = (method: string | undefined, url: string | undefined, allow: string): TRPCError =>
  new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method ?? 'GET'} is not supported on ${pathOf(url)}; use ${allow}.` });

/**
 * Any error as the TRPCError it is answered with, whatever the format: an unavailable database is
 * a 503, anything unknown a crash (500). A database's 503 leaves a line that says why (core's
 * `unavailableCause`: out of connections, timed out, restarting, unreachable, not writable) with
 * the driver's code and message, since each request meets its own; the service's own refusals
 * (shedding, the connection limit, readiness) are logged where they are decided, once per change.
 * A 500's cause is logged whole and never sent.
 */
export const answeredError = (context: RequestContext, cause: unknown): TRPCError => {
  const error = toTrpcError(cause);
  if (error.code === 'SERVICE_UNAVAILABLE') {
    const storage = unavailableCause(error.cause);
    if (storage) logOf(context).warn({ cause: { code: storage.code, message: storage.message } }, `answered 503: database ${storage.why}`);
  } else if (error.code === 'INTERNAL_SERVER_ERROR') logOf(context).error({ err: error.cause ?? error }, 'request failed');
  return error;
};

/**
 * The headers of an error's answer of `status`: a 503 tells its client when to try again. The
 * service's own refusals (shedding, the connection limit, the unsent-bytes budget) say it in `headers`; any
 * other 503 is the database's, or readiness waiting on it, and asks for the database's wait.
 */
export const withRetryAfter = (status: number, headers: FlatHeaders): FlatHeaders =>
  status === 503 && !headers.includes('Retry-After') ? [...headers, 'Retry-After', STORAGE_RETRY_AFTER_SECONDS] : headers;
