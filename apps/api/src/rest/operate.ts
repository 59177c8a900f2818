import { parse } from 'node:querystring';
import { authorize, type callOperation } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { type Admissible, type Admission, type Admitted, insufficientScopeChallenge } from '../admission/admit.js';
import { errorReply } from '../http/error-reply.js';
import type { RequestContext } from '../http/request-context.js';
import { methodNotAllowed, nothingAt } from '../http/failure.js';
import { readJsonObject } from '../http/read-body.js';
import type { Reply } from '../http/reply.js';
import { type AnswerOptions, answerRest } from './answer.js';
import type { RestOperation, RestRoute } from './routes.js';

/** A REST request as its first step read it: its method (HEAD as GET), query, and the route its path matched. */
export interface RestRequest extends Admissible {
  context: RequestContext;
  method: string;
  search: string;
  /** The route and its parameters, percent-decoded (undefined when one cannot be); undefined when no route matched. */
  found: { route: RestRoute; params: Record<string, string> | undefined } | undefined;
}

export interface OperateDependencies {
  /** Calls an operation: `callOperation`, or it wrapped by metrics or tracing. */
  call: typeof callOperation;
}

/**
 * A GET operation's input: its query and path parameters, as text for the operation's schema to
 * read. A parameter given more than once (a repeated query parameter, or a query parameter named
 * like a path parameter) becomes a list and an empty one an empty string: validation refuses both,
 * naming the parameter, instead of one value silently winning.
 */
const queryInput = (search: string, params: Readonly<Record<string, string>>) => {
  // node:querystring: lists for repeated names, '' for empty values, and an object without a
  // prototype, so `__proto__` is a parameter name like any other (and refused as unknown).
  const input: Record<string, string | string[] | undefined> = parse(search);
  for (const [name, value] of Object.entries(params)) {
    const seen = input[name];
    input[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return input;
};

/**
 * A body operation's input: the body's fields and the path's parameters. A body field named like a
 * path parameter is not replaced by it: both values become a list, which validation refuses,
 * naming the parameter, as `queryInput` does for the query.
 */
const bodyInput = (body: object | undefined, params: Readonly<Record<string, string>>) => {
  const input: Record<string, unknown> = { ...body };
  for (const [name, value] of Object.entries(params)) input[name] = Object.hasOwn(input, name) ? [input[name], value] : value;
  return input;
};

/** An operation's refusal or failure, with the request's RateLimit headers and a 403's challenge. */
const refusal = (context: RequestContext, restOp: RestOperation, admitted: Admitted, error: unknown): Reply => {
  if (error instanceof TRPCError && error.code === 'FORBIDDEN') {
    return errorReply(context, error, [...admitted.headers, 'WWW-Authenticate', insufficientScopeChallenge(restOp.meta.scope)]);
  }
  return errorReply(context, error, admitted.headers);
};

/** A body operation: the key's scope before the body is read (403 first), then the body, then the operation. */
const withBody = async ({ call }: OperateDependencies, context: RequestContext, restOp: RestOperation, admitted: Admitted, params: Record<string, string>) => {
  authorize(admitted.ctx, restOp.meta.scope);
  return call(restOp.operation, admitted.ctx, bodyInput(await readJsonObject(context.req), params));
};

/**
 * The second step of a REST request, once admission has answered, in the contract's order: the
 * key and its quota (401, 429), the path and method (404, 405), the path's parameters, then the
 * operation (its scope, 403; its input, 400, a body read only now). Its success goes on to the
 * answer (answer.ts), its refusal is answered here.
 */
export const operate = (dependencies: OperateDependencies, { context, method, search, found }: RestRequest, admission: Admission): Reply | Promise<Reply> => {
  const { req } = context;
  if (!admission.admitted) return errorReply(context, admission.error, admission.headers);
  if (!found) return errorReply(context, nothingAt(req.method, req.url), admission.headers);
  context.route = found.route.name;
  const restOp = found.route.byMethod.get(method);
  if (!restOp) return errorReply(context, methodNotAllowed(req.method, req.url, found.route.allow), [...admission.headers, 'Allow', found.route.allow]);
  const { params } = found;
  if (!params) return errorReply(context, new TRPCError({ code: 'BAD_REQUEST', message: 'A path parameter is not valid percent-encoding.' }), admission.headers);

  const answerOptions: AnswerOptions = { restOp, method, search, ifNoneMatch: req.headers['if-none-match'] };
  const result = restOp.takesBody
    ? withBody(dependencies, context, restOp, admission, params)
    : dependencies.call(restOp.operation, admission.ctx, queryInput(search, params));
  return result.then(answerRest.bind(undefined, answerOptions, admission), refusal.bind(undefined, context, restOp, admission));
};
