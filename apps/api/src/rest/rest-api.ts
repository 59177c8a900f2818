import { type ApiKeys, type Context, type Database, appRouter } from '@petstore/core';
import express, { type RequestHandler, type Router } from 'express';
import type { Logger } from 'pino';
import { createOpenApiNodeHttpHandler } from 'trpc-to-openapi';
import { type AuthenticatedLocals, BEARER_CHALLENGE, requireApiKey } from '../auth/bearer.js';
import { methodNotAllowed, notFound } from '../http/fallbacks.js';
import { BODY_LIMIT_BYTES, jsonBody } from '../http/json-body.js';
import { METHODS_WITH_BODY, type RestOperation, restOperations, toExpressPath } from './operations.js';
import { successResponses } from './response-headers.js';

export interface RestApiDependencies {
  db: Database;
  apiKeys: ApiKeys;
  logger: Logger;
  /** The OpenAPI document, already serialised. */
  openApiJson: string;
}

const groupByPath = (operations: RestOperation[]) => {
  const byPath = new Map<string, RestOperation[]>();
  for (const operation of operations) {
    byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  }
  return byPath;
};

/**
 * The REST interface under `/v1`: the procedures served by the OpenAPI adapter, behind the
 * transport work the adapter leaves to us. Order matters: the key is checked first, then the path
 * and method, then the body, and only then does the adapter run the procedure.
 */
export const createRestApi = ({ db, apiKeys, logger, openApiJson }: RestApiDependencies): Router => {
  const operations = restOperations(appRouter);
  const successFor = successResponses(operations);

  const handle = createOpenApiNodeHttpHandler({
    router: appRouter,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: ({ res }): Context => ({
      db,
      principal: (res as express.Response<unknown, Partial<AuthenticatedLocals>>).locals.principal ?? null,
      transport: 'rest',
      response: {},
    }),
    // The adapter fills `paths` but leaves `info.calls` empty, so the deprecated field it is.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    responseMeta: ({ ctx, paths, data, errors }) => {
      if (errors.length > 0) {
        return errors.some((error) => error.code === 'UNAUTHORIZED')
          ? { headers: { 'WWW-Authenticate': BEARER_CHALLENGE } }
          : {};
      }
      return successFor(paths?.[0])?.(ctx, data[0]) ?? {};
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error, procedure: path }, 'procedure failed');
    },
  });

  const serve: RequestHandler = (req, res, next) => {
    // HEAD is GET without the body; Node drops the body because the request said HEAD.
    if (req.method === 'HEAD') req.method = 'GET';
    handle(req, res, next).catch(next);
  };

  const v1 = express.Router();
  v1.route('/openapi.json')
    .get((_req, res) => {
      res.type('application/json').send(openApiJson);
    })
    .all(methodNotAllowed(['GET']));

  v1.use(requireApiKey(apiKeys));

  for (const [path, onPath] of groupByPath(operations)) {
    const route = v1.route(toExpressPath(path));
    for (const { method } of onPath) {
      const handlers = METHODS_WITH_BODY.has(method) ? [...jsonBody, serve] : [serve];
      route[method.toLowerCase() as Lowercase<typeof method>](...handlers);
    }
    route.all(methodNotAllowed(onPath.map(({ method }) => method)));
  }

  v1.use(notFound);
  return v1;
};
