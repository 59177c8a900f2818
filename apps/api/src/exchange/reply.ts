import { TRPCError } from '@trpc/server';
import type { Exchange, FlatHeaders } from './exchange.js';

/**
 * What a transport or a page answers, as a value: `sendReply` is the one function that writes it.
 * Errors are given as TRPCErrors and rendered there, as the Error body or in tRPC's envelope.
 */
export type Reply = BodyReply | EmptyReply | ErrorReply | CallsReply | FetchReply;

/**
 * Serves the requests of one transport (`/v1`, `/trpc`): what it answers is a Reply, which the
 * front door sends. A reply known without waiting is returned as it is, not as a promise, and is
 * written in the same turn of the event loop.
 */
export type Transport = (exchange: Exchange) => Reply | Promise<Reply>;

/** A body already serialised: JSON by default. `page`: a file of the docs page, which runs scripts. */
export interface BodyReply {
  status: number;
  body: string | Buffer;
  type?: string;
  headers?: FlatHeaders;
  page?: boolean;
}

/** No body at all: a 304, a preflight's 204. */
export interface EmptyReply {
  status: number;
  empty: true;
  headers: FlatHeaders;
  page?: boolean;
}

export interface ErrorReply {
  error: TRPCError;
  headers?: FlatHeaders;
}

/** One call's outcome on `/trpc`. */
export type CallOutcome = { data: unknown } | { error: TRPCError };

/** The calls of a tRPC request, each answered in tRPC's envelope; `batch`: as a list. */
export interface CallsReply {
  calls: CallOutcome[];
  batch: boolean;
  headers?: FlatHeaders;
}

/** A response tRPC's own resolver made (a JSON-lines stream, say), sent as it is with the service's headers. */
export interface FetchReply {
  response: Response;
  headers?: FlatHeaders;
}

/** How much of a request's path an error message quotes back. */
const MAX_ECHOED_PATH = 200;

const pathOf = (url: string | undefined) => {
  const path = (url ?? '/').split('?', 1)[0] ?? '';
  return path.length > MAX_ECHOED_PATH ? `${path.slice(0, MAX_ECHOED_PATH)}…` : path;
};

/** 404 for a path nobody serves, quoting (the start of) the path, never its query. */
export const nothingAt = (method: string | undefined, url: string | undefined, headers?: FlatHeaders): ErrorReply => ({
  error: new TRPCError({ code: 'NOT_FOUND', message: `There is nothing at ${method ?? 'GET'} ${pathOf(url)}.` }),
  headers,
});

/** 405 with the `Allow` header RFC 9110 requires. */
export const methodNotAllowed = (method: string | undefined, url: string | undefined, allow: string, headers: FlatHeaders = []): ErrorReply => ({
  error: new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `${method ?? 'GET'} is not supported on ${pathOf(url)}; use ${allow}.` }),
  headers: [...headers, 'Allow', allow],
});
