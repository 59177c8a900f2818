import { hash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';

/** A client's own request id is kept when it is a plain token; anything else is replaced, never echoed. */
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives a request its id: the client's own when it is a plain token, otherwise one of the issuer's. */
export type RequestIds = (header: string | string[] | undefined) => string;

/**
 * An issuer of request ids: 72 random bits drawn once (each server has its own), so that no two
 * instances give the same id, then a count. A UUID drawn per request cost several times as much
 * (docs/decisions).
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
    private readonly logger: Logger,
    readonly accessLog: AccessLog,
    ids: RequestIds,
  ) {
    this.reqId = ids(req.headers['x-request-id']);
  }

  /** The logger bound to this request's id, made only when something is logged through it. */
  get log(): Logger {
    return (this.bound ??= this.logger.child(this.traceIds ? { reqId: this.reqId, ...this.traceIds } : { reqId: this.reqId }));
  }
}

/**
 * A strong entity tag (RFC 9110 §8.8.3) for a representation: its body and `varying`, a header
 * that can change while the body stays the same (a page's `Link: rel="next"` appears when an animal
 * is added after it, and a cached copy without it would hide the next page). Headers fixed for a
 * route need no place in it.
 */
export const entityTag = (body: string | Buffer, varying?: string): string =>
  `"${hash('sha1', varying === undefined ? body : `${body.toString()}\n${varying}`, 'base64url')}"`;

/** The length of every tag `entityTag` makes: SHA-1 in base64url between quotes. */
export const ENTITY_TAG_LENGTH = 29;

/**
 * Whether `If-None-Match` names the current representation (RFC 9110 §13.1.2, weak comparison):
 * then the answer is 304 with no body.
 */
export const isNotModified = (ifNoneMatch: string | undefined, tag: string): boolean => {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return (trimmed.startsWith('W/') ? trimmed.slice(2) : trimmed) === tag;
  });
};

const exchanges = new WeakMap<IncomingMessage, Exchange>();

/** Remembers the exchange of a request handed to code that sees only node's request (the Express app). */
export const rememberExchange = (exchange: Exchange): void => {
  exchanges.set(exchange.req, exchange);
};

export const exchangeOf = (req: IncomingMessage): Exchange => {
  const exchange = exchanges.get(req);
  if (!exchange) throw new Error('no exchange for this request: the front door makes one for every request');
  return exchange;
};
