import { toErrorBody } from '@petstore/core';
import type { RequestContext, FlatHeaders } from './request-context.js';
import { answeredError, withRetryAfter } from './failure.js';
import type { BodyReply } from './reply.js';

/** A refusal or failure as the Error body, the answer of every error outside `/trpc`. */
export const errorReply = (context: RequestContext, cause: unknown, headers: FlatHeaders = []): BodyReply => {
  const body = toErrorBody(answeredError(context, cause));
  return { kind: 'body', status: body.status, headers: withRetryAfter(body.status, headers), body: JSON.stringify(body) };
};
