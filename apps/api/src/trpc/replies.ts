import { toTrpcErrorShape } from '@petstore/core';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { RequestContext, FlatHeaders } from '../http/request-context.js';
import { answeredError, withRetryAfter } from '../http/failure.js';
import type { Chunk, Reply } from '../http/reply.js';
import { TRPC_ACCEPT, jsonLines, refusedLines } from './json-lines.js';

/** tRPC answers every request with this, so a cache keeps streamed and plain answers apart. */
const TRPC_VARY = ['Vary', `${TRPC_ACCEPT}, accept`];

/** One call's outcome on `/trpc`: its result, or its failure. */
export type CallOutcome = { data: unknown } | { error: unknown };

/** One call's answer in tRPC's envelope. */
const envelopeOf = (context: RequestContext, outcome: CallOutcome) =>
  'data' in outcome ? { result: { data: outcome.data } } : { error: toTrpcErrorShape(answeredError(context, outcome.error)) };

/** A refusal or failure of the whole request: one envelope, its status the error's. */
export const trpcRefusal = (context: RequestContext, cause: unknown, headers: FlatHeaders = []): Reply => {
  const error = toTrpcErrorShape(answeredError(context, cause));
  return { kind: 'body', status: error.data.httpStatus, headers: withRetryAfter(error.data.httpStatus, [...headers, ...TRPC_VARY]), body: JSON.stringify({ error }) };
};

/** tRPC's answer to its calls: one envelope each (a list for a batch), the status by tRPC's own rule (207 when they differ). */
export const callsReply = (context: RequestContext, calls: CallOutcome[], batch: boolean, headers: FlatHeaders): Reply => {
  const items = calls.map((outcome) => envelopeOf(context, outcome));
  const json = batch ? items : items[0];
  if (json === undefined) throw new Error('a tRPC answer needs at least one call');
  const status = getHTTPStatusCode(json);
  return { kind: 'body', status, headers: withRetryAfter(status, [...headers, ...TRPC_VARY]), body: JSON.stringify(json) };
};

/** A later chunk of a streamed batch the process has no room to hold: each of its calls answered with `error`. */
const refusedChunk = (context: RequestContext, chunk: Chunk, error: unknown) => refusedLines(chunk.calls, envelopeOf(context, { error }));

/**
 * A streamed batch, as tRPC's JSON lines: the head once this turn is over (a failure before it
 * is the request's refusal), then each call's line as soon as it is answered.
 */
export const streamReply = async (context: RequestContext, answers: Promise<CallOutcome>[], headers: FlatHeaders): Promise<Reply> => {
  const pieces = jsonLines(answers, (outcome) => envelopeOf(context, outcome));
  try {
    const head = await pieces.next();
    if (head.done) throw new Error('a streamed tRPC answer has a head');
    return { kind: 'chunked', status: 200, headers: [...headers, ...TRPC_VARY], first: head.value, rest: pieces, refused: refusedChunk };
  } catch (error) {
    return trpcRefusal(context, error, headers);
  }
};
