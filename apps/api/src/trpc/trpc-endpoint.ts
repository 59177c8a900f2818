import { type Context, appRouter } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { RequestHandler } from 'express';
import { BEARER_CHALLENGE, authenticate } from '../auth/bearer.js';
import { methodNotAllowed } from '../http/fallbacks.js';
import { BODY_LIMIT_BYTES } from '../http/json-body.js';
import { tooManyRequestsMessage } from '../http/rate-limit.js';
import { restOperations } from '../rest/operations.js';
import { nextPageLink } from '../rest/response-headers.js';
import type { ServiceState } from '../state.js';

/** tRPC speaks GET (queries) and POST (mutations); it would answer anything else in plain text. */
const onlyGetAndPost = methodNotAllowed(['GET', 'POST']);

/** The same procedures for typed clients, in tRPC's own wire format. */
export const createTrpcEndpoint = ({ db, apiKeys, quota, ledger }: ServiceState): RequestHandler[] => {
  const operations = new Map(restOperations(appRouter).map((operation) => [operation.procedure, operation]));

  const trpc = createExpressMiddleware({
    router: appRouter,
    maxBodySize: BODY_LIMIT_BYTES,
    createContext: async ({ req, res }): Promise<Context> => {
      const principal = await authenticate(apiKeys, req.headers.authorization);
      if (principal && quota) {
        // One HTTP request, batched or not, counts once against the key's quota.
        const decision = await quota(principal.keyId);
        for (const [name, value] of Object.entries(decision.headers)) res.setHeader(name, value);
        if (!decision.allowed) throw new TRPCError({ code: 'TOO_MANY_REQUESTS', message: tooManyRequestsMessage(decision) });
      }
      return { db, ledger, principal, response: {} };
    },
    responseMeta: ({ ctx, info, errors }) => {
      if (errors.length > 0) {
        return {
          headers: {
            // tRPC labels some early errors (an unsupported content type) text/plain; they are JSON.
            'Content-Type': 'application/json',
            ...(errors.some((error) => error.code === 'UNAUTHORIZED') && { 'WWW-Authenticate': BEARER_CHALLENGE }),
          },
        };
      }
      // A lone list call gets the same next-page link as REST; in a batch it would be ambiguous.
      const next = ctx?.response.nextPage;
      const calls = info?.calls ?? [];
      const operation = calls.length === 1 ? operations.get(calls[0]?.path ?? '') : undefined;
      return next && operation ? { headers: { Link: nextPageLink(operation, next) } } : {};
    },
    onError: ({ error, path, req }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') req.log.error({ err: error, procedure: path }, 'procedure failed');
    },
  });
  const guard: RequestHandler = (req, res, next) => {
    if (req.method === 'GET' || req.method === 'POST') next();
    else onlyGetAndPost(req, res, next);
  };
  return [guard, trpc];
};
