import { toTrpcError, unavailableCause } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { type Exchange, logOf } from './exchange.js';

/** How much of a request's path an error message quotes back. */
const MAX_ECHOED_PATH = 200;

const pathOf = (url: string | undefined) => {
  const path = (url ?? '/').split('?', 1)[0] ?? '';
  return path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
};

/** 404 for a path nobody serves, quoting (the start of) the path, never its query. */
export const nothingAt = (method: string | undefined, url: string | undefined): TRPCError =>
  new TRPCError({ code: 'NOT_FOUND', message: `There is nothing at ${method ?? 'GET'} ${pathOf(url)}.` });

/** 405; its answer carries `Allow` (RFC 9110), the methods the path takes. */
export const methodNotAllowed = (method: string | undefined, url: string | undefined, allow: string): TRPCError =>
  new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method ?? 'GET'} is not supported on ${pathOf(url)}; use ${allow}.` });

/**
 * What a 503's log line says of its cause, so an operator tells them apart: for the database, why
 * (core's `unavailableCause`: out of connections, timed out, restarting, unreachable, not
 * writable) and the driver's code and message; for a refusal of the service's own (overload, the
 * connection limit, readiness), its cause's message, or its own.
 */
const unavailableLine = (error: TRPCError) => {
  const storage = unavailableCause(error.cause);
  if (storage) return { cause: { code: storage.code, message: storage.message }, msg: `answered 503: database ${storage.why}` };
  const { code, message } = (error.cause ?? error) as { code?: unknown; message: string };
  return { cause: { code: typeof code === 'string' ? code : error.code, message }, msg: `answered 503: ${message}` };
};

/**
 * Any error as the TRPCError it is answered with, whatever the format: an unavailable database is
 * a 503, anything unknown a crash (500). Each of them leaves a line that says why, with the cause's
 * code and message; a 500's cause is logged whole and never sent.
 */
export const answeredError = (exchange: Exchange, cause: unknown): TRPCError => {
  const error = toTrpcError(cause);
  if (error.code === 'SERVICE_UNAVAILABLE') {
    const { cause: why, msg } = unavailableLine(error);
    logOf(exchange).warn({ cause: why }, msg);
  } else if (error.code === 'INTERNAL_SERVER_ERROR') logOf(exchange).error({ err: error.cause ?? error }, 'request failed');
  return error;
};
