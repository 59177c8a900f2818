import { type Context, appRouter } from '@petstore/core';
import type { TRPCError } from '@trpc/server';
import { createURL, incomingMessageToRequest } from '@trpc/server/adapters/node-http';
import { resolveResponse } from '@trpc/server/http';
import type { Exchange, FlatHeaders } from '../exchange/exchange.js';
import { BODY_LIMIT_BYTES } from '../exchange/read-body.js';
import type { FetchReply } from '../exchange/reply.js';

/**
 * The most calls one batched request may carry; tRPC refuses larger batches with a 400. The client
 * batches up to it, from a copy `pnpm openapi` generates (packages/client/scripts/server-constants.ts).
 */
export const MAX_BATCH_SIZE = 50;

const trimSlashes = (path: string) => path.replace(/^\/|\/$/g, '');

export interface ResolverOptions {
  /** The admitted request's context. */
  ctx?: Context | undefined;
  /** Why every call of the request is refused (the key, the quota, the body): tRPC answers each with it. */
  error?: TRPCError | undefined;
  /** The request's body, when the service had to decode it (a `Content-Encoding`); otherwise tRPC reads it. */
  body?: string | undefined;
  allowMethodOverride: boolean;
  headers?: FlatHeaders | undefined;
}

/**
 * Hands a request to tRPC's own resolver, as tRPC's node-http adapter does: a Fetch `Request` made
 * from node's, the procedure path as the standalone adapter takes it, and `resolveResponse`, which
 * speaks every mode `@trpc/client` uses (JSON lines for `httpBatchStreamLink`, POST queries when
 * method override is allowed, HEAD…). Its response is sent by `sendReply`, like every other.
 */
export const resolveWithTrpc = async (exchange: Exchange, { ctx, error, body, allowMethodOverride, headers }: ResolverOptions): Promise<FetchReply> => {
  const { req, res } = exchange;
  // tRPC's adapter takes a body some middleware already read from `req.body`.
  if (body !== undefined) Object.assign(req, { body });
  const request = incomingMessageToRequest(req, res, { maxBodySize: BODY_LIMIT_BYTES });
  const response = await resolveResponse({
    router: appRouter,
    req: request,
    path: trimSlashes(trimSlashes(createURL(req).pathname).slice('trpc'.length)),
    createContext: async () => ctx as Context,
    error: error ?? null,
    allowMethodOverride,
    maxBatchSize: MAX_BATCH_SIZE,
    onError: ({ error: failure }) => {
      if (failure.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: failure.cause ?? failure }, 'procedure failed');
    },
  });
  // A refusal of the whole request is JSON that tRPC hands to `new Response()` as a string without
  // a type, which Fetch labels text/plain; the interface has every error in application/json.
  if (response.body && response.headers.get('content-type')?.startsWith('text/plain')) response.headers.set('content-type', 'application/json');
  return { response, headers };
};
