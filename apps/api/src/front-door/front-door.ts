import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REST_PREFIX, TRPC_PREFIX } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import type { Admissible, Admit, Wire } from '../admission/admit.js';
import type { Authenticate } from '../admission/authenticate.js';
import { type Door, type Exchange, REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '../exchange/exchange.js';
import type { Transport } from '../exchange/reply.js';
import { createAccessLog } from './access-line.js';
import { createHeldAnswers } from './held-answers.js';
import { OVERLOAD_RETRY_AFTER_SECONDS, type OverloadGuard } from './overload.js';
import { writeAnswer, writeFailure, writeReply } from './write-reply.js';

export interface DoorOptions {
  logger: Logger;
  sendTimeoutMs: number;
  /** The bytes all clients that have not taken their answers may make the process hold. */
  maxUnsentBytes: number;
  clientAddress: (req: IncomingMessage) => string;
}

/**
 * The state a server's exchanges share (exchange.ts): made once per server, shared by its front
 * doors. Request ids are 72 random bits drawn once per server, so that no two instances give the
 * same id, then a count in base 36 (`k3Jx0mQ9aL1B.1f`).
 */
export const createDoor = ({ logger, sendTimeoutMs, maxUnsentBytes, clientAddress }: DoorOptions): Door => {
  const prefix = randomBytes(9).toString('base64url');
  let issued = 0;
  return {
    logger,
    accessLog: createAccessLog(logger),
    sendTimeoutMs,
    held: createHeldAnswers(maxUnsentBytes, logger),
    clientAddress,
    stopping: false,
    pastTheLimit: new WeakSet(),
    issueId: (header) => (typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : `${prefix}.${(issued++).toString(36)}`),
  };
};

/** Node's name of the header: lower case. */
const REQUEST_ID_KEY = REQUEST_ID_HEADER.toLowerCase();

/** One request's exchange: its id (the client's own when it is a plain token) and when it started. */
export const openExchange = (req: IncomingMessage, res: ServerResponse, door: Door): Exchange => ({
  req,
  res,
  door,
  reqId: door.issueId(req.headers[REQUEST_ID_KEY]),
  startedAt: performance.now(),
  route: undefined,
  onFinish: undefined,
  traceIds: undefined,
  logger: undefined,
});

export interface AdmissionSteps {
  /** The key against the key store (admission/authenticate.ts). */
  authenticate: Authenticate;
  /** The failed-key throttle and the quota (admission/admit.ts). */
  admit: Admit;
}

/**
 * The one lifecycle both API transports pass through, as Fastify's one lifecycle runs every route:
 * the transport's wire reads the request (or answers it whole), admission takes it, once and the
 * same for both, and the wire answers what admission said. Each step after the key check is a
 * promise reaction handed the request, so the request reads forward and comes back to no step.
 */
export const throughAdmission = <Request extends Admissible>({ authenticate, admit }: AdmissionSteps, wire: Wire<Request>): Transport => ({
  serve: (exchange) => {
    const request = wire.read(exchange);
    if (request instanceof Promise) return request;
    return authenticate(exchange.req).then(admit.bind(undefined, exchange.req, request.spends)).then(wire.answer.bind(undefined, request));
  },
  refuse: wire.refuse,
});

export interface FrontDoorOptions {
  door: Door;
  /** `/v1`, served from the procedures' REST meta, through admission (`throughAdmission`). */
  rest: Transport;
  /** `/trpc`, in tRPC's wire format, through admission (`throughAdmission`). */
  trpc: Transport;
  /**
   * Every other path (the docs page, health, the 404 for nobody's path); absent where the API is
   * mounted in another app, whose next middleware serves them.
   */
  pages?: Transport | undefined;
  /** Adds CORS headers, and says whether the request is a preflight; absent when no browser origin is allowed. */
  cors?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  /** Refuses requests that waited too long in an overloaded queue; absent when shedding is off. */
  overload?: OverloadGuard | undefined;
}

/** Why a connection past the service's limit is refused. */
const PAST_THE_LIMIT = 'has as many connections open as it serves';

const unavailable = (why: string) =>
  new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `The service ${why}; try again in ${OVERLOAD_RETRY_AFTER_SECONDS} second.` });

/**
 * An HTTP/1.1 request must name its host (RFC 9112 §3.2); Node's own check would answer without
 * an Error body, so server.ts turns it off and it is made here.
 */
const hostless = (req: IncomingMessage) => req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1;

const NO_HOST = () => new TRPCError({ code: 'BAD_REQUEST', message: 'An HTTP/1.1 request must have a Host header.' });

const under = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

/**
 * The one way into the service: every request gets its exchange here and goes to what serves its
 * path, `/v1` and `/trpc` after CORS, load shedding and the connection limit. The promise of what
 * answers it is checked once, here: its reply goes to the writer, its failure to the transport's
 * own refusal. Returns false for a path that is not the API's when there are no pages to serve it
 * (a host app's next middleware).
 */
export const createFrontDoor = ({ door, rest, trpc, pages, cors, overload }: FrontDoorOptions) =>
  (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const api = under(url, REST_PREFIX) ? rest : under(url, TRPC_PREFIX) ? trpc : undefined;
    const transport = api ?? pages;
    if (!transport) return false;
    const exchange = openExchange(req, res, door);
    if (hostless(req)) {
      res.shouldKeepAlive = false;
      writeReply(exchange, transport.refuse(exchange, NO_HOST()));
      return true;
    }
    // A connection taken past the server's limit gets this one answer, and closes.
    const pastTheLimit = door.pastTheLimit.has(req.socket);
    if (pastTheLimit) res.shouldKeepAlive = false;
    if (api) {
      // A preflight is answered here, before the key check: browsers send it without credentials.
      if (cors?.(req, res)) {
        writeReply(exchange, { kind: 'empty', status: 204, headers: [] });
        return true;
      }
      if (pastTheLimit || overload?.shed(exchange.startedAt)) {
        const why = pastTheLimit ? PAST_THE_LIMIT : 'is overloaded';
        writeReply(exchange, api.refuse(exchange, unavailable(why), ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS]));
        return true;
      }
    }
    transport.serve(exchange).then(writeAnswer.bind(undefined, exchange, transport), writeFailure.bind(undefined, exchange, transport));
    return true;
  };

/**
 * The way into a listener that serves one transport and nothing of the API (the metrics
 * listener): each request gets its exchange, and its answer goes through the one writer. A
 * connection past the limit or its address's share gets a 503 and closes, as on the public port.
 */
export const createSideDoor = (door: Door, transport: Transport) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const exchange = openExchange(req, res, door);
    if (door.pastTheLimit.has(req.socket)) {
      res.shouldKeepAlive = false;
      writeReply(exchange, transport.refuse(exchange, unavailable(PAST_THE_LIMIT), ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS]));
      return;
    }
    transport.serve(exchange).then(writeAnswer.bind(undefined, exchange, transport), writeFailure.bind(undefined, exchange, transport));
  };
