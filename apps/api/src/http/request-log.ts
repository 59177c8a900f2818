import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';

declare module 'node:http' {
  interface IncomingMessage {
    /** The service's logger bound to this request's id: every line it writes names the request. */
    log: Logger;
  }
}

/** A client's own id is kept when it is a plain token; anything else is replaced, never echoed. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdOf = (header: string | string[] | undefined): string =>
  typeof header === 'string' && ACCEPTABLE_ID.test(header) ? header : randomUUID();

/**
 * One structured log line per request, with its request id, which every response carries as
 * `X-Request-Id`. Only the method, path, status and duration are logged: never headers, so never a
 * key. pino-http did this before, but it built a child logger and its serializers for every
 * request, about a tenth of a request's CPU in the profile; here the child that binds the id to
 * `req.log` is made only when something logs through it, which a request that goes well never does.
 */
export const requestLog = (logger: Logger): RequestHandler => (req, res, next) => {
  const reqId = requestIdOf(req.headers['x-request-id']);
  res.setHeader('X-Request-Id', reqId);
  const startedAt = performance.now();
  let bound: Logger | undefined;
  Object.defineProperty(req, 'log', { get: () => (bound ??= logger.child({ reqId })), configurable: true });
  // 'close' comes after 'finish' when the response was sent, and alone when the client went away.
  res.once('close', () => {
    const line = {
      reqId,
      req: { method: req.method, url: req.originalUrl },
      res: { statusCode: res.statusCode },
      responseTime: Math.round(performance.now() - startedAt),
    };
    if (!res.writableFinished) logger.warn(line, 'request aborted');
    else if (res.statusCode >= 500) logger.error(line, 'request failed');
    else logger.info(line, 'request completed');
  });
  next();
};
