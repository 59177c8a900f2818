import { parse } from 'node:querystring';
import { type Context, andThen, attempt, callOperation } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { type Admission, type Admit, insufficientScopeChallenge } from '../admission/admit.js';
import { type Exchange, type FlatHeaders, entityTag, isNotModified } from '../exchange/exchange.js';
import { readJsonObject } from '../exchange/read-body.js';
import { type Reply, methodNotAllowed, nothingAt } from '../exchange/reply.js';
import {
  METHODS_WITH_BODY,
  REST_PREFIX,
  type RestOperation,
  type SuccessReply,
  compileRoutes,
  matchRoute,
  restOperations,
  successReplyFor,
} from './routes.js';

const DOCUMENT_PATH = `${REST_PREFIX}/openapi.json`;

/**
 * A GET operation's input: its query and path parameters, as text for the procedure's schema to
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

export interface RestTransportDependencies {
  admit: Admit;
  /** The OpenAPI document, serialised, made on first use. */
  openApiJson: () => Promise<string>;
  /** Calls an operation: `callOperation`, or it wrapped by metrics or tracing. */
  call?: typeof callOperation;
}

/**
 * The REST interface under `/v1`, served from the operations' OpenAPI meta: the same meta
 * trpc-to-openapi turns into the document. Routes, allowed methods and fixed headers are worked
 * out once, here; a request pays for its admission, its input, its operation and its JSON. The
 * order of checks is the contract's: the key first, then the quota, the path and method, the
 * scope (in the operation), then the body.
 */
export const createRestTransport = ({ admit, openApiJson, call = callOperation }: RestTransportDependencies) => {
  const restOps = restOperations();
  const routes = compileRoutes(restOps);
  const routeNames = new Map(routes.map((route) => [route, `${REST_PREFIX}${route.template}`]));
  const successReplies = new Map(restOps.map((restOp) => [restOp, successReplyFor(restOp, restOps)]));

  /** A GET answers with an ETag, and with 304 when the client already holds that representation. */
  const conditional = (exchange: Exchange, ctx: Context, reply: SuccessReply, admitted: FlatHeaders): Reply => {
    const tag = entityTag(reply.body, reply.varying);
    if (isNotModified(exchange.req.headers['if-none-match'], tag)) {
      return { status: 304, empty: true, headers: [...admit.refund(ctx, 1, admitted), ...reply.headers, 'ETag', tag] };
    }
    return { status: reply.status, body: reply.body, headers: [...admitted, ...reply.headers, 'ETag', tag] };
  };

  /** A call's answer, at once when the operation's is (a read on SQLite), otherwise once it settles. */
  const run = (exchange: Exchange, restOp: RestOperation, ctx: Context, readInput: () => unknown, search: string, admitted: FlatHeaders): Reply | Promise<Reply> => {
    const refused = (error: unknown): Reply => {
      if (!(error instanceof TRPCError)) throw error;
      const challenge = error.code === 'FORBIDDEN' ? ['WWW-Authenticate', insufficientScopeChallenge(restOp.meta.scope)] : [];
      return { error, headers: [...admitted, ...challenge] };
    };
    const answered = (result: unknown): Reply => {
      const successReply = successReplies.get(restOp);
      if (!successReply) throw new Error(`no success reply for ${restOp.name}`);
      const reply = successReply(result, search);
      if (restOp.method === 'GET') return conditional(exchange, ctx, reply, admitted);
      return { ...reply, headers: admitted.length === 0 ? reply.headers : [...admitted, ...reply.headers] };
    };
    return attempt(() => call(restOp.operation, ctx, readInput), answered, refused);
  };

  /** An admitted request: its route and method, then its operation; refused, its refusal. */
  const answer = (exchange: Exchange, admission: Admission, path: string, search: string, method: string): Reply | Promise<Reply> => {
    const { req } = exchange;
    if (!admission.admitted) return { error: admission.error, headers: admission.headers };
    const match = matchRoute(routes, path.slice(REST_PREFIX.length));
    if (match) exchange.route = routeNames.get(match.route);
    const restOp = match?.route.byMethod.get(method);
    if (!match) return nothingAt(req.method, req.url, admission.headers);
    if (!restOp) return methodNotAllowed(req.method, req.url, match.route.allow, admission.headers);
    const { params } = match;
    if (!params) {
      return { error: new TRPCError({ code: 'BAD_REQUEST', message: 'A path parameter is not valid percent-encoding.' }), headers: admission.headers };
    }
    // The body is read only once the operation has admitted the key's scope.
    const readInput = METHODS_WITH_BODY.has(restOp.method)
      ? async () => ({ ...(await readJsonObject(req)), ...params })
      : () => queryInput(search, params);
    return run(exchange, restOp, admission.ctx, readInput, search, admission.headers);
  };

  return (exchange: Exchange): Reply | Promise<Reply> => {
    const { req } = exchange;
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const search = queryStart === -1 ? '' : url.slice(queryStart + 1);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');

    if (path === DOCUMENT_PATH) {
      if (method === 'GET') return openApiJson().then((body) => ({ status: 200, body }));
      return methodNotAllowed(req.method, url, 'GET, HEAD');
    }

    return andThen(admit(req, 1), (admission) => answer(exchange, admission, path, search, method));
  };
};
