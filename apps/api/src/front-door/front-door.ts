import type { IncomingMessage, ServerResponse } from 'node:http';
import { toErrorBody, toTrpcError, toTrpcErrorShape } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import { REST_PREFIX } from '../rest/operations.js';
import { TRPC_PREFIX } from '../trpc/trpc-handler.js';
import { createAccessLog } from './access-log.js';
import { Exchange } from './exchange.js';
import { OVERLOAD_RETRY_AFTER_SECONDS, type OverloadGuard } from './overload.js';

export type ApiHandler = (exchange: Exchange) => Promise<void>;

const under = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

/**
 * The service's front door: `/v1` and `/trpc` go straight to their handlers on the plain node
 * request and response; anything else is not ours (`serve` returns false) and goes to the Express
 * app around it (docs, health, fallbacks) or, where the handlers are mounted in another Express
 * app, to its next middleware. A handler that throws is a crash: logged, answered with a 500 in
 * its transport's error format, never with its cause.
 */
export interface FrontDoorOptions {
  rest: ApiHandler;
  trpc: ApiHandler;
  logger: Logger;
  /** Answers preflights and adds CORS headers; absent when no browser origin is allowed. */
  cors?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  /** Refuses new requests while the event loop is overloaded; absent when shedding is off. */
  overload?: OverloadGuard | undefined;
}

export const createFrontDoor = ({ rest, trpc, logger, cors, overload }: FrontDoorOptions) => {
  const accessLog = createAccessLog(logger);
  // An unavailable database (the key check reads it) is a 503 the client may retry, not a crash.
  const crashed = (exchange: Exchange, format: 'rest' | 'trpc') => (cause: unknown) => {
    const error = toTrpcError(cause);
    if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: cause }, 'request failed');
    if (exchange.res.headersSent) {
      exchange.res.destroy();
      return;
    }
    const body = toErrorBody(error);
    exchange.sendJson(body.status, JSON.stringify(format === 'rest' ? body : { error: toTrpcErrorShape(error) }));
  };

  const shed = (exchange: Exchange, format: 'rest' | 'trpc') => {
    const unavailable = new TRPCError({
      code: 'SERVICE_UNAVAILABLE',
      message: `The service is overloaded; try again in ${OVERLOAD_RETRY_AFTER_SECONDS} second.`,
    });
    const body = format === 'rest' ? toErrorBody(unavailable) : { error: toTrpcErrorShape(unavailable) };
    exchange.sendJson(503, JSON.stringify(body), ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS]);
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const handler = under(url, REST_PREFIX) ? rest : under(url, TRPC_PREFIX) ? trpc : undefined;
    if (!handler) return false;
    // A preflight is answered here, before the key check: browsers send it without credentials.
    if (cors && !cors(req, res)) return true;
    const exchange = new Exchange(req, res, logger, accessLog);
    const format = handler === rest ? 'rest' : 'trpc';
    if (overload?.overloaded()) {
      shed(exchange, format);
      return true;
    }
    handler(exchange).catch(crashed(exchange, format));
    return true;
  };
};

export type FrontDoor = ReturnType<typeof createFrontDoor>;
