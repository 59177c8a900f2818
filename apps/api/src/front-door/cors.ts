import type { IncomingMessage, ServerResponse } from 'node:http';
import cors from 'cors';

/** The request headers a browser app may send: the key, the body's type and encoding, retries. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Content-Encoding', 'Idempotency-Key', 'X-Request-Id'];

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
  'X-Request-Id',
  'Idempotent-Replayed',
];

/** How long a browser may reuse a preflight's answer. */
export const CORS_MAX_AGE_SECONDS = 600;

/**
 * Cross-origin access for browser apps on `origins` (`*`: any), through the `cors` package.
 * Returns false when it answered the request itself (a preflight: 204, before any key is asked
 * for); true when the request goes on, with the CORS headers for a listed origin and none for
 * another, which the browser then refuses. Undefined when no origin is listed: no CORS at all.
 */
export const createCors = (origins: readonly string[]) => {
  if (origins.length === 0) return undefined;
  const middleware = cors({
    origin: origins.includes('*') ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    optionsSuccessStatus: 204,
  });
  // With a fixed list of origins the package decides synchronously: `next` has run, or not at all.
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    let goesOn = false;
    middleware(req, res, () => {
      goesOn = true;
    });
    return goesOn;
  };
};
