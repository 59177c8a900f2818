import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/** A client's own id is kept when it is a plain token; anything else is replaced, never echoed. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdOf = (header: string | string[] | undefined): string =>
  typeof header === 'string' && ACCEPTABLE_ID.test(header) ? header : randomUUID();

/**
 * One structured log line per request, with its request id, which every response carries as
 * `X-Request-Id`; `req.log` carries it into every other line logged for the request. Only the
 * method, path and status are logged: never headers, so never a key.
 */
export const requestLog = (logger: Logger): RequestHandler =>
  pinoHttp({
    logger,
    // `req.log` binds only the id, so every line logged for a request names it as `reqId`.
    quietReqLogger: true,
    genReqId: (req, res) => {
      const id = requestIdOf(req.headers['x-request-id']);
      res.setHeader('X-Request-Id', id);
      return id;
    },
    serializers: {
      req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
  });
