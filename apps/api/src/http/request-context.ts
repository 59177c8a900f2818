import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/** The header a request's id comes in, when its client chose one, and every response's id goes out in. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request id a client may choose: a plain token. Anything else is replaced, never echoed. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/** Headers as `writeHead` takes them flat: name, value, name, value… */
export type FlatHeaders = (string | number)[];

/** Writes the one line each request leaves once its reply is written. */
export type AccessLog = (
  reqId: string,
  method: string | undefined,
  url: string | undefined,
  status: number,
  responseTime: number,
  trace?: { trace_id: string; span_id: string },
) => void;

/**
 * The bytes of answers the process holds for clients that have not taken them: what their
 * sockets could not hand to the system at once, held until the client reads or the send timeout
 * closes its connection (front-door/unsent-bytes.ts).
 */
export interface UnsentBytes {
  /** Bytes held now, for every client together. */
  readonly bytes: number;
  /** Whether an answer of `bytes` for `address` may be written: within the budget, and within the address's share. */
  fits(bytes: number, address: string): boolean;
  /** After a write: what `socket` could not hand on is counted, for the process and `address`, until it drains or closes. */
  hold(socket: Socket, address: string): void;
}

/**
 * What every request of one server shares: its logger, its access line, how long a client may
 * leave an answer untaken and the unsent bytes held for such clients, whether the server is stopping,
 * which every reply from then on answers by closing its connection, and which connections it took
 * past its limit.
 */
export interface ServerContext {
  readonly logger: Logger;
  readonly accessLog: AccessLog;
  readonly sendTimeoutMs: number;
  /** The bytes held for clients that have not taken their answers, within their budget. */
  readonly unsentBytes: UnsentBytes;
  /** The address a request came from, through the proxies the service trusts. */
  readonly clientAddress: (req: IncomingMessage) => string;
  stopping: boolean;
  /**
   * The connections taken past a bound (front-door/connections.ts), each with why: the one request
   * each gets answered is refused 503, a health check's excepted, and the connection closes.
   */
  readonly refusedConnections: WeakMap<Socket, string>;
  /** Gives a request its id: the client's own when it is a plain token, else one of the server's. */
  issueId(header: string | string[] | undefined): string;
}

/** Told when a request's reply has been written, with its status and how long it took. */
export type FinishListener = (context: RequestContext, status: number, elapsedMs: number) => void;

/**
 * One request, from its arrival to its reply: its id, when it started, what it was routed to.
 * The front door opens one for every request (`openExchange`); the writer ends it.
 */
export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly server: ServerContext;
  readonly reqId: string;
  readonly startedAt: number;
  /**
   * The route, once a transport knows it: the REST path template (`/v1/pets/{petId}`) or the
   * procedure (`/trpc/listPets`), never the raw URL. Metrics and spans are labelled with it.
   */
  route: string | undefined;
  /** Set at the start by metrics or tracing when they are on; otherwise nothing is called. */
  onFinish: FinishListener | undefined;
  /** The request's trace ids for its log lines (`trace_id`, `span_id`); unset without tracing. */
  traceIds: { trace_id: string; span_id: string } | undefined;
  /** The logger bound to the request's id, once something was logged through it (`logOf`). */
  logger: Logger | undefined;
}

/** The logger bound to this request's id, made when something is first logged through it. */
export const logOf = (context: RequestContext): Logger =>
  (context.logger ??= context.server.logger.child(context.traceIds ? { reqId: context.reqId, ...context.traceIds } : { reqId: context.reqId }));
