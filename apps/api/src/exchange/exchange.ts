import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

/** A client's own request id is kept when it is a plain token; anything else is replaced, never echoed. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives a request its id: the client's own when it is a plain token, otherwise one of the issuer's. */
export type RequestIds = (header: string | string[] | undefined) => string;

/**
 * An issuer of request ids: 72 random bits drawn once per server, so that no two instances give
 * the same id, then a count in base 36 (`k3Jx0mQ9aL1B.1f`).
 */
export const requestIds = (): RequestIds => {
  const prefix = randomBytes(9).toString('base64url');
  let issued = 0;
  return (header) => (typeof header === 'string' && ACCEPTABLE_ID.test(header) ? header : `${prefix}.${(issued++).toString(36)}`);
};

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
 * What every exchange of one server shares: its logger, its access line, its request ids, how
 * long a client may leave an answer untaken, whether the server is stopping, which every reply
 * from then on answers by closing its connection, and which connections it took past its limit.
 */
export interface Door {
  readonly logger: Logger;
  readonly accessLog: AccessLog;
  readonly ids: RequestIds;
  readonly sendTimeoutMs: number;
  stopping: boolean;
  /** The connections the server took past its limit (front-door/connections.ts): each gets one answer. */
  readonly pastTheLimit: WeakSet<Socket>;
}

/** Told when an exchange's reply has been written, with its status and how long it took. */
export type FinishListener = (exchange: Exchange, status: number, elapsedMs: number) => void;

/**
 * How the exchange's errors are written: the Error body (`rest`, and every page outside the API),
 * or tRPC's envelope (`trpc`).
 */
export type ErrorFormat = 'rest' | 'trpc';

/**
 * One request, from its arrival to its reply: its id, when it started, what it was routed to, and
 * its logger. The front door makes one for every request; `sendReply` ends it.
 */
export class Exchange {
  readonly reqId: string;
  readonly startedAt = performance.now();
  private bound: Logger | undefined;
  errorFormat: ErrorFormat = 'rest';
  /**
   * The route, once a transport knows it: the REST path template (`/v1/pets/{petId}`) or the tRPC
   * procedure (`/trpc/listPets`), never the raw URL. Metrics and spans are labelled with it.
   */
  route: string | undefined = undefined;
  /** Set at the start by metrics or tracing when they are on; otherwise nothing is called. */
  onFinish: FinishListener | undefined = undefined;
  /** The request's trace ids for its log lines (`trace_id`, `span_id`); unset without tracing. */
  traceIds: { trace_id: string; span_id: string } | undefined = undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly door: Door,
  ) {
    this.reqId = door.ids(req.headers['x-request-id']);
  }

  /** The logger bound to this request's id, made only when something is logged through it. */
  get log(): Logger {
    return (this.bound ??= this.door.logger.child(this.traceIds ? { reqId: this.reqId, ...this.traceIds } : { reqId: this.reqId }));
  }
}
