import type { IncomingMessage, OutgoingHttpHeader } from 'node:http';
import { STORAGE_RETRY_AFTER_SECONDS, toErrorBody, toTrpcErrorShape } from '@petstore/core';
import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { type Logger, pino } from 'pino';
import type { AccessLog, Exchange, FlatHeaders } from '../exchange/exchange.js';
import type { CallOutcome, FetchReply, Reply } from '../exchange/reply.js';

/** pino's levels, as the line's `level` field carries them. */
const INFO = 30;
const ERROR = 50;

interface PinoInternals {
  /** The logger's base fields (`pid`, `hostname`, child bindings), already serialised: `,"pid":…`. */
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/**
 * The one line each API request leaves, in pino's own format and through the logger's own
 * destination, written as a template instead of through `logger.info()`: pino's generic
 * serialisation and redaction are a noticeable share of a whole get-by-id, the template a small
 * fraction of that (docs/decisions). The fields are few and known: an id of plain token
 * characters, a method Node has checked, a number, and a URL, which is escaped as JSON. Every other
 * line the service logs still goes through pino.
 */
export const createAccessLog = (logger: Logger): AccessLog => {
  const internals = logger as unknown as PinoInternals;
  const bindings = internals[pino.symbols.chindingsSym];
  const stream = internals[pino.symbols.streamSym];
  const infoEnabled = logger.isLevelEnabled('info');
  const errorEnabled = logger.isLevelEnabled('error');
  return (reqId, method, url, status, responseTime, trace) => {
    const failed = status >= 500;
    if (failed ? !errorEnabled : !infoEnabled) return;
    // Trace and span ids are lowercase hex, as W3C Trace Context has them: nothing to escape.
    const traceFields = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
    stream.write(
      `{"level":${failed ? ERROR : INFO},"time":${Date.now()}${bindings},"reqId":"${reqId}"${traceFields},"req":{"method":"${method ?? ''}","url":${JSON.stringify(url ?? '')}},"res":{"statusCode":${status}},"responseTime":${responseTime},"msg":"${failed ? 'request failed' : 'request completed'}"}\n`,
    );
  };
};

/** Every answer but the docs page's files: nothing in it may be run, framed or cached by a shared cache. */
const API_SECURITY_HEADERS: FlatHeaders = [
  'X-Content-Type-Options', 'nosniff',
  'Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
  'Cache-Control', 'no-store',
];

/**
 * The docs page runs its own scripts and Swagger UI's inline styles, from this origin only. Its
 * files change only with a release: a browser may keep them, but asks each time whether they are
 * still current (its ETag), so a new release is never hidden behind a stale copy.
 */
const PAGE_SECURITY_HEADERS: FlatHeaders = [
  'X-Content-Type-Options', 'nosniff',
  'Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
  'Referrer-Policy', 'no-referrer',
  'Cache-Control', 'no-cache',
];

/** What a body is unless a reply says otherwise. */
const JSON_TYPE = 'application/json';

/** tRPC answers every request with this, so a cache keeps streamed and plain answers apart. */
const TRPC_VARY = 'trpc-accept, accept';

const envelope = (error: TRPCError) => ({ error: toTrpcErrorShape(error) });

const logCrash = (exchange: Exchange, error: TRPCError) => {
  if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: error.cause ?? error }, 'request failed');
};

/** An error as its exchange's format has it: the Error body, or one tRPC envelope. */
const renderError = (exchange: Exchange, error: TRPCError) => {
  logCrash(exchange, error);
  const body = toErrorBody(error);
  return { status: body.status, body: JSON.stringify(exchange.errorFormat === 'trpc' ? envelope(error) : body) };
};

/** tRPC's answer to its calls: one envelope each, the status by tRPC's own rule (207 when they differ). */
const renderCalls = (exchange: Exchange, calls: CallOutcome[], batch: boolean) => {
  const items = calls.map((call) => {
    if ('data' in call) return { result: { data: call.data } };
    logCrash(exchange, call.error);
    return envelope(call.error);
  });
  const json = batch ? items : items[0];
  if (json === undefined) throw new Error('a tRPC answer needs at least one call');
  return { status: getHTTPStatusCode(json), body: JSON.stringify(json) };
};

const finish = (exchange: Exchange, status: number) => {
  const elapsedMs = performance.now() - exchange.startedAt;
  exchange.accessLog(exchange.reqId, exchange.req.method, exchange.req.url, status, Math.round(elapsedMs), exchange.traceIds);
  exchange.onFinish?.(exchange, status, elapsedMs);
};

/**
 * Whether the request's body has not all arrived: a request answered before its body was read (a
 * refusal) closes its connection rather than read the rest. A request that has no body is not
 * `complete` until its 'request' event is over, yet leaves nothing to read: answered in that same
 * turn (a read on SQLite), it keeps its connection.
 */
const bodyLeft = (req: IncomingMessage): boolean =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');

/**
 * The headers every reply carries, then the reply's own; what is left of an unread body closes the
 * connection. `fromTrpc`: tRPC's own resolver already set its headers.
 */
const headersOf = (exchange: Exchange, status: number, own: FlatHeaders | undefined, { page = false, fromTrpc = false } = {}): OutgoingHttpHeader[] => {
  const headers: OutgoingHttpHeader[] = ['X-Request-Id', exchange.reqId, ...(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)];
  if (own) for (const value of own) headers.push(value);
  if (exchange.errorFormat === 'trpc' && !fromTrpc) headers.push('Vary', TRPC_VARY);
  // Every 503 tells the client when to try again, unless its sender already did.
  if (status === 503 && !own?.includes('Retry-After')) headers.push('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
  if (bodyLeft(exchange.req)) headers.push('Connection', 'close');
  return headers;
};

/** tRPC's own response (a JSON-lines stream, say): its status and headers, the service's, then its body as it comes. */
const sendFetchResponse = async (exchange: Exchange, { response, headers: own }: FetchReply): Promise<void> => {
  const { res } = exchange;
  const headers: OutgoingHttpHeader[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  for (const value of headersOf(exchange, response.status, own, { fromTrpc: true })) headers.push(value);
  res.writeHead(response.status, headers as string[]);
  try {
    const reader = response.body?.getReader();
    for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader?.read()) {
      if (res.destroyed) {
        await reader?.cancel();
        break;
      }
      if (!res.write(chunk.value)) await new Promise((resolve) => res.once('drain', resolve).once('close', resolve));
    }
    res.end();
  } catch (error) {
    // A client that left aborts tRPC's stream: nothing failed but the connection.
    if (!(error instanceof Error && error.name === 'AbortError')) exchange.log.error({ err: error }, 'streaming the response failed');
    res.destroy();
  }
  finish(exchange, response.status);
};

/**
 * The one function that writes a response of the service: REST bodies, the Error body, tRPC's
 * envelopes and streams, 304s, 503s, the pages outside the API and their errors. It adds what
 * every response carries (the request id, the security headers, `Retry-After` on a 503), writes
 * status, headers and body in one call with their `Content-Length`, and leaves the access line.
 */
export const sendReply = (exchange: Exchange, reply: Reply): void | Promise<void> => {
  const { res } = exchange;
  // A crash after the head went out: nothing sound can follow it on this connection.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if ('response' in reply) return sendFetchResponse(exchange, reply);
  if ('empty' in reply) {
    res.writeHead(reply.status, headersOf(exchange, reply.status, reply.headers, { page: reply.page }) as string[]);
    res.end();
    finish(exchange, reply.status);
    return;
  }
  const { status, body, type = JSON_TYPE, page }: { status: number; body: string | Buffer; type?: string | undefined; page?: boolean | undefined } =
    'error' in reply ? renderError(exchange, reply.error)
    : 'calls' in reply ? renderCalls(exchange, reply.calls, reply.batch)
    : reply;
  const headers = headersOf(exchange, status, reply.headers, { page });
  headers.push('Content-Type', type, 'Content-Length', Buffer.byteLength(body));
  res.writeHead(status, headers as string[]);
  res.end(body);
  finish(exchange, status);
};
