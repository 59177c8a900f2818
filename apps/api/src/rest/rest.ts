import { type Context, toErrorBody } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { type Admit, refuseScope } from '../admission/admit.js';
import type { Exchange, FlatHeaders } from '../front-door/exchange.js';
import { readJsonBody } from '../front-door/read-json-body.js';
import { type ProcedureEntry, callProcedure } from '../procedures/procedure-table.js';
import { entityTag, isNotModified } from './conditional.js';
import { METHODS_WITH_BODY, REST_PREFIX, type RestOperation, restOperations } from './operations.js';
import { queryInput } from './query-input.js';
import { successResponder } from './response-headers.js';
import { compileRoutes, matchRoute } from './routes.js';

const DOCUMENT_PATH = `${REST_PREFIX}/openapi.json`;
const MAX_ECHOED_PATH = 200;

/** Answers with the Error body of `error`; a crash is logged in full and described by nothing. */
export const sendRestError = (exchange: Exchange, error: TRPCError, headers?: FlatHeaders): void => {
  if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: error.cause ?? error }, 'request failed');
  const body = toErrorBody(error);
  exchange.sendJson(body.status, JSON.stringify(body), headers);
};

const refuse = (exchange: Exchange, code: TRPC_ERROR_CODE_KEY, message: string, headers?: FlatHeaders) => {
  sendRestError(exchange, new TRPCError({ code, message }), headers);
};

export interface RestHandlerDependencies {
  admit: Admit;
  table: ReadonlyMap<string, ProcedureEntry>;
  /** The OpenAPI document, serialised, made on first use. */
  openApiJson: () => Promise<string>;
  /** Runs a procedure: `callProcedure`, or it wrapped by metrics or tracing. */
  call?: typeof callProcedure;
}

/**
 * The REST interface under `/v1`, served from the procedures' OpenAPI meta: the same meta
 * trpc-to-openapi turns into the document. Routes, allowed methods and fixed headers are worked
 * out once, here; a request pays for its admission, its input, its procedure and its JSON. The
 * order of checks is the contract's: the key first, then the quota, the path and method, the body.
 */
export const createRestHandler = ({ admit, table, openApiJson, call = callProcedure }: RestHandlerDependencies) => {
  const operations = restOperations(table);
  const routes = compileRoutes(operations);
  const routeNames = new Map(routes.map((route) => [route, `${REST_PREFIX}${route.template}`]));
  const responders = new Map(operations.map((operation) => [operation, successResponder(operation, operations)]));

  const run = async (exchange: Exchange, operation: RestOperation, ctx: Context, input: unknown, search: string, admitted: FlatHeaders) => {
    // A GET answers with an ETag, and with 304 when the client already holds that representation.
    let data: unknown;
    try {
      data = await call(operation.entry, ctx, input);
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      sendRestError(exchange, error, admitted);
      return;
    }
    const respond = responders.get(operation);
    if (!respond) throw new Error(`no responder for ${operation.entry.name}`);
    const { status, body, headers } = respond(ctx, data, search);
    const json = JSON.stringify(body);
    if (operation.method !== 'GET') {
      exchange.sendJson(status, json, admitted.length === 0 ? headers : [...admitted, ...headers]);
      return;
    }
    const tag = entityTag(json, headers);
    if (isNotModified(exchange.req.headers['if-none-match'], tag)) {
      exchange.sendEmpty(304, [...(await admit.refund(ctx, 1, admitted)), ...headers, 'ETag', tag]);
      return;
    }
    exchange.sendJson(status, json, [...admitted, ...headers, 'ETag', tag]);
  };

  return async (exchange: Exchange): Promise<void> => {
    const { req } = exchange;
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const search = queryStart === -1 ? '' : url.slice(queryStart + 1);
    const method = req.method === 'HEAD' ? 'GET' : (req.method ?? 'GET');

    if (path === DOCUMENT_PATH) {
      if (method === 'GET') exchange.sendJson(200, await openApiJson());
      else refuse(exchange, 'METHOD_NOT_SUPPORTED', `${method} is not supported on ${path}; use GET, HEAD.`, ['Allow', 'GET, HEAD']);
      return;
    }

    const admission = await admit(req, 1);
    if (!admission.admitted) {
      sendRestError(exchange, admission.error, admission.headers);
      return;
    }

    const match = matchRoute(routes, path.slice(REST_PREFIX.length));
    if (match) exchange.route = routeNames.get(match.route);
    const operation = match?.route.byMethod.get(method);
    if (!match || !operation) {
      if (match) {
        const allow = match.route.allow;
        refuse(exchange, 'METHOD_NOT_SUPPORTED', `${req.method} is not supported on ${path.slice(0, MAX_ECHOED_PATH)}; use ${allow}.`, [...admission.headers, 'Allow', allow]);
      } else {
        refuse(exchange, 'NOT_FOUND', `There is nothing at ${req.method} ${path.slice(0, MAX_ECHOED_PATH)}.`, admission.headers);
      }
      return;
    }
    if (!match.params) {
      refuse(exchange, 'BAD_REQUEST', 'A path parameter is not valid percent-encoding.', admission.headers);
      return;
    }
    const outOfScope = refuseScope(admission.ctx, operation.entry.meta.scope);
    if (outOfScope) {
      sendRestError(exchange, outOfScope.error, [...admission.headers, ...outOfScope.headers]);
      return;
    }

    if (!METHODS_WITH_BODY.has(operation.method)) {
      await run(exchange, operation, admission.ctx, queryInput(search, match.params), search, admission.headers);
      return;
    }
    const body = await readJsonBody(req, { objectOnly: true });
    if (!body.ok) {
      // What is left of a refused body is not read: the connection closes after the answer.
      sendRestError(exchange, body.error, req.complete ? admission.headers : [...admission.headers, 'Connection', 'close']);
      return;
    }
    await run(exchange, operation, admission.ctx, { ...(body.value as object | undefined), ...match.params }, search, admission.headers);
  };
};
