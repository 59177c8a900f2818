import type { IncomingMessage, ServerResponse } from 'node:http';
import { REST_PREFIX, TRPC_PREFIX } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import { type Door, type ErrorFormat, Exchange, requestIds } from '../exchange/exchange.js';
import type { Transport } from '../exchange/reply.js';
import { OVERLOAD_RETRY_AFTER_SECONDS, type OverloadGuard } from './overload.js';
import { createAccessLog, sendReply } from './send-reply.js';

/** The state a server's exchanges share (exchange.ts): made once per server, shared by its front doors. */
export const createDoor = (logger: Logger, sendTimeoutMs: number): Door => ({
  logger,
  accessLog: createAccessLog(logger),
  ids: requestIds(),
  sendTimeoutMs,
  stopping: false,
  pastTheLimit: new WeakSet(),
});

export interface FrontDoorOptions {
  door: Door;
  /** `/v1`, served from the procedures' REST meta. */
  rest: Transport;
  /** `/trpc`, in tRPC's wire format. */
  trpc: Transport;
  /**
   * Every other path (the docs page, health, the 404 for nobody's path); absent where the API is
   * mounted in another app, whose next middleware serves them.
   */
  pages?: Transport | undefined;
  /** Adds CORS headers, and says whether the request is a preflight; absent when no browser origin is allowed. */
  cors?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  /** Refuses new requests while the event loop is overloaded; absent when shedding is off. */
  overload?: OverloadGuard | undefined;
}

const under = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

/**
 * The one way into the service: every request gets its exchange (id, start, logger) here and goes
 * to what serves its path, `/v1` and `/trpc` after CORS and load shedding; what that answers, or
 * its failure, leaves through `sendReply`. Returns false for a path that is not the API's when
 * there are no pages to serve it (a host app's next middleware).
 */
export const createFrontDoor = ({ door, rest, trpc, pages, cors, overload }: FrontDoorOptions) => {
  const [restPrefix, trpcPrefix] = [REST_PREFIX, TRPC_PREFIX];

  /** The one place a transport's answer is awaited: its reply is written, its failure rendered. */
  const serve = (exchange: Exchange, transport: Transport) => {
    transport(exchange).then(
      (reply) => {
        sendReply(exchange, reply);
      },
      (error: unknown) => {
        sendReply(exchange, { error });
      },
    );
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const format: ErrorFormat | undefined = under(url, restPrefix) ? 'rest' : under(url, trpcPrefix) ? 'trpc' : undefined;
    // A connection taken past the server's limit gets this one answer, and closes.
    const pastTheLimit = door.pastTheLimit.has(req.socket);
    if (pastTheLimit) res.shouldKeepAlive = false;
    if (!format) {
      if (!pages) return false;
      serve(new Exchange(req, res, door), pages);
      return true;
    }
    const exchange = new Exchange(req, res, door);
    exchange.errorFormat = format;
    // A preflight is answered here, before the key check: browsers send it without credentials.
    if (cors?.(req, res)) {
      sendReply(exchange, { status: 204, empty: true, headers: [] });
      return true;
    }
    if (overload?.overloaded || pastTheLimit) {
      const why = pastTheLimit ? 'has as many connections open as it serves' : 'is overloaded';
      const unavailable = new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `The service ${why}; try again in ${OVERLOAD_RETRY_AFTER_SECONDS} second.` });
      sendReply(exchange, { error: unavailable, headers: ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS] });
      return true;
    }
    serve(exchange, format === 'rest' ? rest : trpc);
    return true;
  };
};

export type FrontDoor = ReturnType<typeof createFrontDoor>;
