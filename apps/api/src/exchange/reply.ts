import { TRPCError } from '@trpc/server';
import type { Exchange, FlatHeaders } from './exchange.js';

/**
 * What a transport or a page answers, as a value: `sendReply` is the one function that writes it.
 * Errors are rendered there, as the Error body or in tRPC's envelope.
 */
export type Reply = BodyReply | EmptyReply | ErrorReply | CallsReply | StreamReply;

/**
 * Serves the requests of one part of the service (`/v1`, `/trpc`, the pages): what it answers is
 * a Reply, which the front door hands to the writer once it settles.
 */
export type Transport = (exchange: Exchange) => Promise<Reply>;

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
  /** Not varied by what the client accepts, which a tRPC answer otherwise is (tRPC's answer to HEAD). */
  unvaried?: boolean;
}

/**
 * A refusal or a failure: a TRPCError says which; anything else is a crash (500), or an
 * unavailable database (503), decided where it is rendered.
 */
export interface ErrorReply {
  error: unknown;
  headers?: FlatHeaders;
}

/** One call's outcome on `/trpc`. */
export type CallOutcome = { data: unknown } | { error: unknown };

/** The calls of a tRPC request, each answered in tRPC's envelope; `batch`: as a list. */
export interface CallsReply {
  calls: CallOutcome[];
  batch: boolean;
  headers?: FlatHeaders;
}

/**
 * The calls of a streamed tRPC batch (httpBatchStreamLink), answered as JSON lines: each call's
 * answer is written as soon as it settles. The promises never reject: a call's failure is its outcome.
 */
export interface StreamReply {
  stream: Promise<CallOutcome>[];
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
