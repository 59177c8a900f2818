import { toErrorBody } from '@petstore/core';
import type { Exchange, FlatHeaders } from './exchange.js';
import { answeredError, withRetryAfter } from './failure.js';
import type { BodyReply } from './reply.js';

/** A refusal or failure as the Error body, the answer of every error outside `/trpc`. */
export const errorReply = (exchange: Exchange, cause: unknown, headers: FlatHeaders = []): BodyReply => {
  const body = toErrorBody(answeredError(exchange, cause));
  return { kind: 'body', status: body.status, headers: withRetryAfter(body.status, headers), body: JSON.stringify(body) };
};
