import type { IncomingMessage, ServerResponse } from 'node:http';
import { operations } from '@petstore/core';
import cors from 'cors';
import { REQUEST_ID_HEADER } from '../http/request-context.js';
import { TRPC_ACCEPT } from '../trpc/json-lines.js';

/**
 * The request headers a browser app may send: the key, the body's type and encoding, retries, and
 * `trpc-accept`, with which tRPC's httpBatchStreamLink asks for JSON lines.
 */
const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Content-Encoding', 'Idempotency-Key', REQUEST_ID_HEADER, TRPC_ACCEPT];

/** The response headers a browser app must be able to read to use the API as documented. */
export const CORS_EXPOSED_HEADERS = [
  'ETag',
  'Link',
  'Location',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Deprecation',
  'Sunset',
  REQUEST_ID_HEADER,
  'Idempotent-Replayed',
];

/** What a browser app may send: tRPC's GET and POST, HEAD, and every REST operation's own method. */
const CORS_METHODS = [
  ...new Set(['GET', 'HEAD', 'POST', ...Object.values(operations).flatMap(({ meta }) => (meta.openapi ? [meta.openapi.method] : []))]),
];

/** How long a browser may reuse a preflight's answer. */
const CORS_MAX_AGE_SECONDS = 600;

/**
 * Cross-origin access for browser apps on `origins` (`*`: any), through the `cors` package: it sets
 * the CORS headers for a listed origin and none for another, which the browser then refuses.
 * Returns true for a preflight, which the front door answers with a 204 before any key is asked
 * for. Undefined when no origin is listed: no CORS at all.
 */
export const createCors = (origins: readonly string[]) => {
  if (origins.length === 0) return undefined;
  const middleware = cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    // The front door answers the preflight: every response leaves through its one writer.
    preflightContinue: true,
  });
  // With a fixed list of origins the package decides synchronously, and always goes on.
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    middleware(req, res, () => undefined);
    return req.method === 'OPTIONS';
  };
};
