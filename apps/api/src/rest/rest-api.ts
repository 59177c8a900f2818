import { type Context, appRouter } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Request, RequestHandler, Response } from 'express';
import { authenticate, refuseKey } from '../auth/bearer.js';
import { readJsonBody } from '../http/json-body.js';
import { tooManyRequestsMessage } from '../http/rate-limit.js';
import { sendError, sendErrorFor } from '../http/send-error.js';
import type { ServiceState } from '../state.js';
import { METHODS_WITH_BODY, type RestOperation, restOperations } from './operations.js';
import { queryInput } from './query-input.js';
import { REST_PREFIX, successResponder } from './response-headers.js';
import { compileRoutes, matchRoute } from './routes.js';

const DOCUMENT_PATH = `${REST_PREFIX}/openapi.json`;

export interface RestApiDependencies {
  state: ServiceState;
  /** The OpenAPI document, already serialised. */
  openApiJson: string;
}

const isRestPath = (url: string) =>
  url.startsWith(`${REST_PREFIX}/`) || url === REST_PREFIX || url.startsWith(`${REST_PREFIX}?`);

/**
 * The REST interface under `/v1`, served from the procedures' OpenAPI meta: the same meta
 * trpc-to-openapi turns into the document. Everything that does not depend on the request (routes,
 * allowed methods, fixed headers) is worked out once, here; a request pays for its key check, its
 * quota, its input, its procedure and its JSON. The order of checks is the contract's: the key
 * first, then the quota, the path and method, then the body.
 */
export const createRestApi = ({ state, openApiJson }: RestApiDependencies): RequestHandler => {
  const { db, apiKeys, quota, ledger } = state;
  const operations = restOperations(appRouter);
  const routes = compileRoutes(operations);
  const responders = new Map(operations.map((operation) => [operation, successResponder(operation, operations)]));

  const run = async (operation: RestOperation, ctx: Context, input: unknown, req: Request, res: Response) => {
    try {
      const data = await operation.call(ctx, input);
      const respond = responders.get(operation);
      if (!respond) throw new Error(`no responder for ${operation.procedure}`);
      const { status, headers } = respond(ctx, data);
      res.writeHead(status, headers).end(JSON.stringify(data));
    } catch (error) {
      if (!(error instanceof TRPCError)) throw error;
      if (error.code === 'INTERNAL_SERVER_ERROR') {
        req.log.error({ err: error.cause ?? error, procedure: operation.procedure }, 'procedure failed');
      }
      sendErrorFor(res, error);
    }
  };

  return async (req, res, next) => {
    const url = req.url;
    if (!isRestPath(url)) {
      next();
      return;
    }
    const queryStart = url.indexOf('?');
    const path = queryStart === -1 ? url : url.slice(0, queryStart);
    const method = req.method === 'HEAD' ? 'GET' : req.method;

    if (path === DOCUMENT_PATH) {
      if (method !== 'GET') {
        res.setHeader('Allow', 'GET, HEAD');
        sendError(res, 'METHOD_NOT_SUPPORTED', `${req.method} is not supported on ${path}; use GET, HEAD.`);
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(openApiJson);
      return;
    }

    const principal = await authenticate(apiKeys, req.headers.authorization);
    if (!principal) {
      refuseKey(res, req.headers.authorization);
      return;
    }
    if (quota) {
      const decision = await quota(principal.keyId);
      for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
      if (!decision.allowed) {
        sendError(res, 'TOO_MANY_REQUESTS', tooManyRequestsMessage(decision));
        return;
      }
    }

    const match = matchRoute(routes, path.slice(REST_PREFIX.length));
    const operation = match?.route.byMethod.get(method);
    if (!match || !operation) {
      if (match) {
        res.setHeader('Allow', match.route.allow);
        sendError(res, 'METHOD_NOT_SUPPORTED', `${req.method} is not supported on ${path}; use ${match.route.allow}.`);
      } else {
        sendError(res, 'NOT_FOUND', `There is nothing at ${req.method} ${path.slice(0, 200)}.`);
      }
      return;
    }
    if (!match.params) {
      sendError(res, 'BAD_REQUEST', 'A path parameter is not valid percent-encoding.');
      return;
    }

    const idempotencyKey = req.headers['idempotency-key'];
    const ctx: Context = {
      db,
      ledger,
      principal,
      idempotencyKey: Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey,
      response: {},
    };
    if (!METHODS_WITH_BODY.has(operation.method)) {
      await run(operation, ctx, queryInput(queryStart === -1 ? '' : url.slice(queryStart + 1), match.params), req, res);
      return;
    }
    const body = await readJsonBody(req, res);
    if (body.ok) await run(operation, ctx, { ...body.value, ...match.params }, req, res);
    else next(body.error);
  };
};
