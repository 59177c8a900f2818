import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REST_PREFIX, TRPC_PREFIX } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import type { Admissible, Admit, Transport } from '../admission/admit.js';
import type { Authenticate } from '../admission/authenticate.js';
import { type ServerContext, type RequestContext, REQUEST_ID_HEADER, REQUEST_ID_PATTERN } from '../http/request-context.js';
import type { Handler } from '../http/reply.js';
import { createAccessLog } from './access-line.js';
import { createUnsentBytes as createUnsentBytes } from './unsent-bytes.js';
import { OVERLOAD_RETRY_AFTER_SECONDS, type OverloadGuard } from './overload.js';
import { writeAnswer, writeFailure, writeReply } from './write-reply.js';

export interface ServerContextOptions {
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
export const createServerContext = ({ logger, sendTimeoutMs, maxUnsentBytes, clientAddress }: ServerContextOptions): ServerContext => {
  const prefix = randomBytes(9).toString('base64url');
  let issued = 0;
  return {
    logger,
    accessLog: createAccessLog(logger),
    sendTimeoutMs,
    unsentBytes: createUnsentBytes(maxUnsentBytes, logger),
    clientAddress,
    stopping: false,
    refusedConnections: new WeakMap(),
    issueId: (header) => (typeof header === 'string' && REQUEST_ID_PATTERN.test(header) ? header : `${prefix}.${(issued++).toString(36)}`),
  };
};

/** Node's name of the header: lower case. */
const REQUEST_ID_KEY = REQUEST_ID_HEADER.toLowerCase();

/** One request's exchange: its id (the client's own when it is a plain token) and when it started. */
export const openRequestContext = (req: IncomingMessage, res: ServerResponse, serverContext: ServerContext): RequestContext => ({
  req,
  res,
  server: serverContext,
  reqId: serverContext.issueId(req.headers[REQUEST_ID_KEY]),
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
 * the transport reads the request (or answers it whole), admission takes it, once and the
 * same for both, and the transport answers what admission said. Each step after the key check is a
 * promise reaction handed the request, so the request reads forward and comes back to no step.
 */
export const throughAdmission = <Request extends Admissible>({ authenticate, admit }: AdmissionSteps, transport: Transport<Request>): Handler => ({
  serve: (context) => {
    const request = transport.read(context);
    if (request instanceof Promise) return request;
    return authenticate(context.req).then(admit.bind(undefined, context.req, request.quotaCost)).then(transport.answer.bind(undefined, request));
  },
  refuse: transport.refuse,
});

export interface FrontDoorOptions {
  server: ServerContext;
  /** `/v1`, served from the procedures' REST meta, through admission (`throughAdmission`). */
  rest: Handler;
  /** `/trpc`, in tRPC's wire format, through admission (`throughAdmission`). */
  trpc: Handler;
  /**
   * Every other path (the docs page, health, the 404 for nobody's path); absent where the API is
   * mounted in another app, whose next middleware serves them.
   */
  pages?: Handler | undefined;
  /** Adds CORS headers, and says whether the request is a preflight; absent when no browser origin is allowed. */
  cors?: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  /** Refuses requests that waited too long in an overloaded queue; absent when shedding is off. */
  overload?: OverloadGuard | undefined;
}

const unavailable = (why: string) =>
  new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: `The service ${why}; try again in ${OVERLOAD_RETRY_AFTER_SECONDS} second.` });

/**
 * An HTTP/1.1 request must name its host (RFC 9112 §3.2); Node's own check would answer without
 * an Error body, so server.ts turns it off and it is made here.
 */
const hostless = (req: IncomingMessage) => req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1;

const NO_HOST = () => new TRPCError({ code: 'BAD_REQUEST', message: 'An HTTP/1.1 request must have a Host header.' });

const startsWithPath = (url: string, prefix: string) =>
  url.startsWith(prefix) && (url.length === prefix.length || url[prefix.length] === '/' || url[prefix.length] === '?');

/**
 * The one way into the service: every request gets its exchange here and goes to what serves its
 * path, `/v1` and `/trpc` after CORS, load shedding and the connection bounds. The promise of what
 * answers it is checked once, here: its reply goes to the writer, its failure to the transport's
 * own refusal. Returns false for a path that is not the API's when there are no pages to serve it
 * (a host app's next middleware).
 */
export const createFrontDoor = ({ server: serverContext, rest, trpc, pages, cors, overload }: FrontDoorOptions) =>
  (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? '/';
    const api = startsWithPath(url, REST_PREFIX) ? rest : startsWithPath(url, TRPC_PREFIX) ? trpc : undefined;
    const transport = api ?? pages;
    if (!transport) return false;
    const context = openRequestContext(req, res, serverContext);
    if (hostless(req)) {
      res.shouldKeepAlive = false;
      writeReply(context, transport.refuse(context, NO_HOST()));
      return true;
    }
    // A connection taken past a bound gets this one answer, and closes.
    const refused = serverContext.refusedConnections.get(req.socket);
    if (refused !== undefined) res.shouldKeepAlive = false;
    if (api) {
      // A preflight is answered here, before the key check: browsers send it without credentials.
      if (cors?.(req, res)) {
        writeReply(context, { kind: 'empty', status: 204, headers: [] });
        return true;
      }
      if (refused !== undefined || overload?.shed(context.startedAt)) {
        const why = refused ?? 'is overloaded';
        writeReply(context, api.refuse(context, unavailable(why), ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS]));
        return true;
      }
    }
    transport.serve(context).then(writeAnswer.bind(undefined, context, transport), writeFailure.bind(undefined, context, transport));
    return true;
  };

/**
 * The way into a listener that serves one transport and nothing of the API (the metrics
 * listener): each request gets its exchange, and its answer goes through the one writer. A
 * connection past the limit or its address's share gets a 503 and closes, as on the public port.
 */
export const createListenerHandler = (serverContext: ServerContext, transport: Handler) =>
  (req: IncomingMessage, res: ServerResponse): void => {
    const context = openRequestContext(req, res, serverContext);
    const refused = serverContext.refusedConnections.get(req.socket);
    if (refused !== undefined) {
      res.shouldKeepAlive = false;
      writeReply(context, transport.refuse(context, unavailable(refused), ['Retry-After', OVERLOAD_RETRY_AFTER_SECONDS]));
      return;
    }
    transport.serve(context).then(writeAnswer.bind(undefined, context, transport), writeFailure.bind(undefined, context, transport));
  };
