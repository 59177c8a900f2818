import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { requestIdOf } from '../front-door/exchange.js';

declare module 'node:http' {
  interface IncomingMessage {
    /** The service's logger bound to this request's id: every line it writes names the request. */
    log: Logger;
  }
}

/**
 * For the routes the Express app serves (docs, health, fallbacks): the same request id and log
 * line the API's own path writes (see front-door/exchange.ts), with `req.log` bound to the id only
 * when something logs through it.
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
