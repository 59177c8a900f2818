import { type ApiKeys, type Context, type Database, appRouter } from '@petstore/core';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { BEARER_CHALLENGE, authenticate } from '../auth/bearer.js';
import { BODY_LIMIT_BYTES } from '../http/json-body.js';
import { restOperations } from '../rest/operations.js';
import { nextPageLink } from '../rest/response-headers.js';

export interface TrpcEndpointDependencies {
  db: Database;
  apiKeys: ApiKeys;
  logger: Logger;
}

/** The same procedures for typed clients, in tRPC's own wire format. */
export const createTrpcEndpoint = ({ db, apiKeys, logger }: TrpcEndpointDependencies): RequestHandler => {
  const operations = new Map(restOperations(appRouter).map((operation) => [operation.procedure, operation]));

  return createExpressMiddleware({
    router: appRouter,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: async ({ req }): Promise<Context> => ({
      db,
      principal: await authenticate(apiKeys, req.headers.authorization),
      response: {},
    }),
    responseMeta: ({ ctx, info, errors }) => {
      if (errors.some((error) => error.code === 'UNAUTHORIZED')) {
        return { headers: { 'WWW-Authenticate': BEARER_CHALLENGE } };
      }
      // A lone list call gets the same next-page link as REST; in a batch it would be ambiguous.
      const next = ctx?.response.nextPage;
      const calls = info?.calls ?? [];
      const operation = calls.length === 1 ? operations.get(calls[0]?.path ?? '') : undefined;
      return next && operation ? { headers: { Link: nextPageLink(operation, next) } } : {};
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logger.error({ err: error, procedure: path }, 'procedure failed');
    },
  });
};
