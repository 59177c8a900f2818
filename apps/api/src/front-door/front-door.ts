import type { IncomingMessage, ServerResponse } from 'node:http';
import { toTrpcError } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import { createAccessLog } from './send-reply.js';
import { type ErrorFormat, Exchange, rememberExchange, requestIds } from '../exchange/exchange.js';
import type { Reply, Transport } from '../exchange/reply.js';
import { REST_PREFIX } from '../rest/routes.js';
import { TRPC_PREFIX } from '../trpc/trpc.js';
import { OVERLOAD_RETRY_AFTER_SECONDS, type OverloadGuard } from './overload.js';
import { sendReply } from './send-reply.js';

export interface FrontDoorOptions {
  /** `/v1`, served from the procedures' REST meta. */
  rest: Transport;
  /** `/trpc`, in tRPC's wire format. */
  trpc: Transport;
  /**
   * Every other path (the docs page, health, the 404 for nobody's path), given the exchange the
   * front door made; absent where the API is mounted in another app, whose next middleware serves them.
   */
  pages?: ((exchange: Exchange) => void) | undefined;
  logger: Logger;
  /** Adds CORS headers, and says whether the request is a preflight; absent when no browser origin is allowed. */
  cors?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  /** Refuses new requests while the event loop is overloaded; absent when shedding is off. */
  overload?: OverloadGuard | undefined;
}

const under = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

/**
 * The one way into the service: every request gets its exchange (id, start, logger) here; `/v1`
 * and `/trpc` go to their transport on node's own request and response, after CORS and load
 * shedding; what a transport answers, or a crash, leaves through `sendReply`. Returns false for a
 * path that is not the API's when there are no pages to serve it (a host app's next middleware).
 */
export const createFrontDoor = ({ rest, trpc, pages, logger, cors, overload }: FrontDoorOptions) => {
  const accessLog = createAccessLog(logger);
  const ids = requestIds();
  const serve = (exchange: Exchange, transport: Transport) => {
    if (overload?.overloaded) {
      const unavailable = new TRPCError({
        code: 'SERVICE_UNAVAILABLE',
        message: `The service is overloaded; try again in ${OVERLOAD_RETRY_AFTER_SECONDS} second.`,
      });
      void sendReply(exchange, { error: unavailable, headers: ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS] });
      return;
    }
    // An unavailable database (the key check reads it) is a 503 the client may retry, not a crash.
    let reply: Reply | Promise<Reply>;
    try {
      reply = transport(exchange);
    } catch (cause) {
      reply = { error: toTrpcError(cause) };
    }
    if (reply instanceof Promise) reply.then((settled) => sendReply(exchange, settled), (cause: unknown) => sendReply(exchange, { error: toTrpcError(cause) }));
    else void sendReply(exchange, reply);
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const format: ErrorFormat | undefined = under(url, REST_PREFIX) ? 'rest' : under(url, TRPC_PREFIX) ? 'trpc' : undefined;
    if (!format && !pages) return false;
    const exchange = new Exchange(req, res, logger, accessLog, ids);
    // A preflight is answered here, before the key check: browsers send it without credentials.
    if (format && cors?.(req, res)) {
      void sendReply(exchange, { status: 204, empty: true, headers: [] });
      return true;
    }
    if (!format) {
      rememberExchange(exchange);
      pages?.(exchange);
      return true;
    }
    exchange.errorFormat = format;
    serve(exchange, format === 'rest' ? rest : trpc);
    return true;
  };
};

export type FrontDoor = ReturnType<typeof createFrontDoor>;
