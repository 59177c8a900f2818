import type { RequestContext, FlatHeaders } from './request-context.js';

/**
 * What a transport or a page answers, as a value the writer needs no protocol to write: a status,
 * headers, and a body, no body, or a body in chunks.
 */
export type Reply = BodyReply | EmptyReply | ChunkedReply;

/** What a body is unless a reply says otherwise. */
export const JSON_TYPE = 'application/json';

/** A body already serialised: JSON unless `type` says otherwise. `page`: a file of the docs page, which runs scripts. */
export interface BodyReply {
  kind: 'body';
  status: number;
  headers: FlatHeaders;
  body: string | Buffer;
  type?: string;
  page?: boolean;
}

/** No body at all: a 304, a 204. */
export interface EmptyReply {
  kind: 'empty';
  status: number;
  headers: FlatHeaders;
  page?: boolean;
}

/** A piece of a body written as it is ready; `last`: nothing follows it; `calls`: the calls of a batch it answers. */
export interface Chunk {
  text: string;
  last: boolean;
  calls?: readonly number[];
}

/**
 * A JSON body written in chunks as they are ready, the first one already in hand. The chunks
 * that follow may fail: the body then ends with what was written.
 */
export interface ChunkedReply {
  kind: 'chunked';
  status: number;
  headers: FlatHeaders;
  first: Chunk;
  rest: AsyncIterator<Chunk, void>;
  /** What a later chunk becomes when the process has no room to hold it: its calls' refusal with `error`. */
  refused: (context: RequestContext, chunk: Chunk, error: unknown) => string;
}

/**
 * Serves the requests of one part of the service (`/v1`, `/trpc`, the pages): `serve` answers an
 * request; `refuse` answers a refusal or failure of a whole request as that part does (the
 * front door's own, or a transport's promise that failed).
 */
export interface Handler {
  serve: (context: RequestContext) => Promise<Reply>;
  refuse: (context: RequestContext, error: unknown, headers?: FlatHeaders) => Reply;
}
