import { parse } from 'node:querystring';
import { REST_PREFIX, authorize, callOperation, isReplayed } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Admit, Admitted } from '../admission/admit.js';
import { insufficientScopeChallenge } from '../admission/admit.js';
import { answerConditionally } from '../exchange/conditional-get.js';
import { readJsonObject } from '../exchange/read-body.js';
import { type Reply, type Transport, methodNotAllowed, nothingAt } from '../exchange/reply.js';
import { type RestOperation, type RestRoute, compileRoutes } from './routes.js';

const DOCUMENT_PATH = `${REST_PREFIX}/openapi.json`;

/** A request as REST reads it: its path, its query, its method (HEAD as GET). */
interface RestRequest {
  path: string;
  search: string;
  method: string;
}

const readRequest = (url: string, method: string | undefined): RestRequest => {
  const queryStart = url.indexOf('?');
  return {
    path: queryStart === -1 ? url : url.slice(0, queryStart),
    search: queryStart === -1 ? '' : url.slice(queryStart + 1),
    method: method === 'HEAD' ? 'GET' : (method ?? 'GET'),
  };
};

const decode = (text: string) => {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
};

/** The route whose template matches `path`, with its parameters percent-decoded (undefined when one cannot be). */
const match = (routes: readonly RestRoute[], path: string) => {
  for (const route of routes) {
    const found = route.pattern.exec(path);
    if (!found) continue;
    const params: Record<string, string> = {};
    for (const [index, name] of route.parameters.entries()) {
      const value = decode(found[index + 1] ?? '');
      if (value === undefined) return { route, params: undefined };
      params[name] = value;
    }
    return { route, params };
  }
  return undefined;
};

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

/** `Link: <…>; rel="next"` (RFC 8288): this request's query again, with the next page's cursor. */
const nextPageLink = (restOp: RestOperation, search: string, nextCursor: string): string => {
  const query = new URLSearchParams(search);
  query.set('cursor', nextCursor);
  return `<${restOp.address}?${query.toString()}>; rel="next"`;
};

interface Page {
  items: unknown;
  nextCursor: string | null;
}

/**
 * A success as REST sends it, from the operation's meta: its status and fixed headers, and what
 * the result adds: a page's items as the body and its next page's `Link` (also `varying`, the one
 * header that can change while the body stays the same, which a GET's entity tag covers), a
 * created resource's `Location`, a replayed create's `Idempotent-Replayed`.
 */
const success = (restOp: RestOperation, result: unknown, search: string) => {
  const { status, fixedHeaders, deprecation } = restOp;
  if (restOp.paginated) {
    const { items, nextCursor } = result as Page;
    const body = JSON.stringify(items);
    if (nextCursor === null) return { status, body, headers: fixedHeaders, varying: undefined };
    const next = nextPageLink(restOp, search, nextCursor);
    const link = deprecation ? `${deprecation.link}, ${next}` : next;
    return { status, body, headers: [...(deprecation?.headers ?? []), 'Link', link], varying: link };
  }
  let headers = fixedHeaders;
  if (restOp.createdUnder !== undefined) headers = [...headers, 'Location', `${restOp.createdUnder}${(result as { id: number }).id}`];
  if (isReplayed(result)) headers = [...headers, 'Idempotent-Replayed', 'true'];
  return { status, body: JSON.stringify(result), headers, varying: undefined };
};

/** An operation's refusal or failure, with the request's RateLimit headers and a 403's challenge. */
const refusal = (error: unknown, restOp: RestOperation, admitted: Admitted): Reply => {
  if (error instanceof TRPCError && error.code === 'FORBIDDEN') {
    return { error, headers: [...admitted.headers, 'WWW-Authenticate', insufficientScopeChallenge(restOp.meta.scope)] };
  }
  return { error, headers: admitted.headers };
};

export interface RestTransportDependencies {
  admit: Admit;
  /** How long a request's body may take to arrive (`BODY_TIMEOUT_MS`). */
  bodyTimeoutMs: number;
  /** The OpenAPI document, serialised, made on first use. */
  openApiJson: () => Promise<string>;
  /** Calls an operation: `callOperation`, or it wrapped by metrics or tracing. */
  call?: typeof callOperation;
}

/**
 * The REST interface under `/v1`, served from the operations' OpenAPI meta: the same meta
 * trpc-to-openapi turns into the document. A request goes through the contract's checks in its
 * order: the key and its quota (admission), the path and method, the key's scope, the input (the
 * body read only now), the operation; then its success, answered conditionally when it is a GET.
 */
export const createRestTransport = ({ admit, bodyTimeoutMs, openApiJson, call = callOperation }: RestTransportDependencies): Transport => {
  const routes = compileRoutes();

  return async (exchange) => {
    const { req } = exchange;
    const { path, search, method } = readRequest(req.url ?? '/', req.method);
    if (path === DOCUMENT_PATH) {
      return method === 'GET' ? { status: 200, body: await openApiJson() } : methodNotAllowed(req.method, req.url, 'GET, HEAD');
    }

    const admission = await admit(req, 1);
    if (!admission.admitted) return { error: admission.error, headers: admission.headers };
    const found = match(routes, path);
    if (!found) return nothingAt(req.method, req.url, admission.headers);
    exchange.route = found.route.name;
    const restOp = found.route.byMethod.get(method);
    if (!restOp) return methodNotAllowed(req.method, req.url, found.route.allow, admission.headers);
    const { params } = found;
    if (!params) return { error: new TRPCError({ code: 'BAD_REQUEST', message: 'A path parameter is not valid percent-encoding.' }), headers: admission.headers };

    let result: unknown;
    try {
      const ctx = authorize(admission.ctx, restOp.meta.scope);
      const input = restOp.takesBody ? bodyInput(await readJsonObject(req, bodyTimeoutMs), params) : queryInput(search, params);
      result = await call(restOp.operation, ctx, input);
    } catch (error) {
      return refusal(error, restOp, admission);
    }
    const { varying, ...reply } = success(restOp, result, search);
    if (method === 'GET') return answerConditionally(req, reply, varying, admission.headers);
    return { ...reply, headers: [...admission.headers, ...reply.headers] };
  };
};
