import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { STORAGE_RETRY_AFTER_SECONDS, toErrorBody, toTrpcError, toTrpcErrorShape } from '@petstore/core';
import type { TRPCError } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import { type Logger, pino } from 'pino';
import type { AccessLog, Exchange, FlatHeaders } from '../exchange/exchange.js';
import type { CallOutcome, Reply, StreamReply } from '../exchange/reply.js';
import { type Piece, jsonLines } from './json-lines.js';
import { watchSending } from './send-timeout.js';

/** pino's levels, as the line's `level` field carries them. */
const INFO = 30;
const ERROR = 50;

interface PinoInternals {
  /** The logger's base fields (`pid`, `hostname`, child bindings), already serialised: `,"pid":…`. */
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.streamSym]: { write(line: string): void };
}

/**
 * The most of a URL an access line quotes: a request line may take 16 KiB, and a log that copied
 * it whole would let any client write that much into it with every request.
 */
export const MAX_LOGGED_URL_LENGTH = 2_048;

const loggedUrl = (url: string) => (url.length > MAX_LOGGED_URL_LENGTH ? `${url.slice(0, MAX_LOGGED_URL_LENGTH)}…` : url);

/**
 * The one line each request leaves once its reply is written, in pino's own format, through the
 * logger's own destination: written from a template because pino's `child().info()` costs 1.0 µs a
 * line against 0.35, 4% of a get by id's CPU (docs/decisions/2026-11-26-request-path-reads-forward.md).
 * The fields are few and known: an id of plain token characters, a method Node has checked, a
 * number, and a URL, which is escaped as JSON. Every other line goes through pino.
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
      `{"level":${failed ? ERROR : INFO},"time":${Date.now()}${bindings},"reqId":"${reqId}"${traceFields},"req":{"method":"${method ?? ''}","url":${JSON.stringify(loggedUrl(url ?? ''))}},"res":{"statusCode":${status}},"responseTime":${responseTime},"msg":"${failed ? 'request failed' : 'request completed'}"}\n`,
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

/** Any error as the TRPCError it is answered with; a crash's cause is logged, never sent. */
const errorOf = (exchange: Exchange, cause: unknown): TRPCError => {
  const error = toTrpcError(cause);
  if (error.code === 'INTERNAL_SERVER_ERROR') exchange.log.error({ err: error.cause ?? error }, 'request failed');
  return error;
};

/** One call's answer in tRPC's envelope. */
const envelopeOf = (exchange: Exchange, outcome: CallOutcome) =>
  'data' in outcome ? { result: { data: outcome.data } } : { error: toTrpcErrorShape(errorOf(exchange, outcome.error)) };

/** An error as its exchange's format has it: the Error body, or one tRPC envelope. */
const renderError = (exchange: Exchange, cause: unknown) => {
  const error = errorOf(exchange, cause);
  const body = toErrorBody(error);
  return { status: body.status, body: JSON.stringify(exchange.errorFormat === 'trpc' ? { error: toTrpcErrorShape(error) } : body) };
};

/** tRPC's answer to its calls: one envelope each, the status by tRPC's own rule (207 when they differ). */
const renderCalls = (exchange: Exchange, calls: CallOutcome[], batch: boolean) => {
  const items = calls.map((outcome) => envelopeOf(exchange, outcome));
  const json = batch ? items : items[0];
  if (json === undefined) throw new Error('a tRPC answer needs at least one call');
  return { status: getHTTPStatusCode(json), body: JSON.stringify(json) };
};

const finish = (exchange: Exchange, status: number) => {
  const elapsedMs = performance.now() - exchange.startedAt;
  exchange.door.accessLog(exchange.reqId, exchange.req.method, exchange.req.url, status, Math.round(elapsedMs), exchange.traceIds);
  exchange.onFinish?.(exchange, status, elapsedMs);
};

/**
 * Whether the request's body has not all arrived: a request answered before its body was read (a
 * refusal) closes its connection rather than read the rest. A request that has no body is not
 * `complete` until its 'request' event is over, yet leaves nothing to read.
 */
const bodyLeft = (req: IncomingMessage): boolean =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');

/**
 * After an answer given before the request's body was read (a 413, or a 401, 403 or 415 that need
 * not read it), the client is still sending, and most clients read an answer only once they have
 * sent their body: closing at once would cut them off with a reset instead of the answer. So the
 * connection lingers, reading and dropping what arrives, until the body ends (as nginx's
 * lingering close does), within these bounds. A client that sends past them is not sending a body
 * by mistake, and is cut off.
 */
export const LINGER_MAX_BYTES = 8 * 1024 * 1024;
export const LINGER_MAX_MS = 5_000;

/** Ends the response: at once, or, with a body still arriving, once it has arrived (bounded). */
const end = ({ req, res, door }: Exchange, last?: string | Buffer) => {
  if (!bodyLeft(req)) {
    res.end(last);
    // What the system did not take at once waits in the process, and so does any answer queued
    // behind it on this connection: the client must come for it.
    if (req.socket.writableLength > 0) watchSending(req.socket, door.sendTimeoutMs);
    return;
  }
  if (last !== undefined) res.write(last);
  if (req.socket.writableLength > 0) watchSending(req.socket, door.sendTimeoutMs);
  let dropped = 0;
  const cutOff = () => {
    clearTimeout(cut);
    res.end();
    req.socket.destroy();
  };
  const cut = setTimeout(cutOff, LINGER_MAX_MS).unref();
  const arrived = () => {
    clearTimeout(cut);
    res.end();
  };
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) cutOff();
  });
  req.once('end', arrived).once('close', arrived).once('error', arrived);
  req.resume();
};

/**
 * The headers every reply carries, then the reply's own. A reply closes its connection when the
 * service is stopping, and when the request's body was not read (what is left of it is read and
 * dropped first, see `end`). A tRPC answer varies with what the client accepts (JSON lines or
 * not), but for `unvaried` (the HEAD tRPC answers with an empty 204).
 */
const headersOf = (exchange: Exchange, status: number, own: FlatHeaders | undefined, { page = false, unvaried = false } = {}): OutgoingHttpHeader[] => {
  const headers: OutgoingHttpHeader[] = ['X-Request-Id', exchange.reqId, ...(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)];
  if (own) for (const value of own) headers.push(value);
  if (exchange.errorFormat === 'trpc' && !unvaried) headers.push('Vary', TRPC_VARY);
  // Every 503 tells the client when to try again, unless its sender already did.
  if (status === 503 && !own?.includes('Retry-After')) headers.push('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
  if (exchange.door.stopping || bodyLeft(exchange.req)) headers.push('Connection', 'close');
  return headers;
};

/** Resolves when `res` can take more, or has closed. */
const drained = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });

/**
 * A streamed batch, as tRPC's JSON lines: the head once this turn is over, then each call's line
 * as soon as it is answered. A client that goes away is not waited for; a stream that fails after
 * its head went out is ended as tRPC's own adapter ends it, with what was written so far.
 */
const sendStream = async (exchange: Exchange, { stream, headers: own }: StreamReply): Promise<void> => {
  const { res } = exchange;
  const pieces = jsonLines(stream, (outcome) => envelopeOf(exchange, outcome));
  let piece: IteratorResult<Piece, void>;
  try {
    piece = await pieces.next();
  } catch (error) {
    sendReply(exchange, { error, headers: own });
    return;
  }
  const headers = headersOf(exchange, 200, own);
  headers.push('Content-Type', JSON_TYPE, 'Transfer-Encoding', 'chunked');
  res.writeHead(200, headers as string[]);
  const gone = new Promise<'gone'>((resolve) => {
    res.once('close', () => {
      resolve('gone');
    });
  });
  try {
    while (!piece.done && !piece.value.last) {
      if (!res.write(piece.value.text)) {
        watchSending(exchange.req.socket, exchange.door.sendTimeoutMs);
        await drained(res);
      }
      const next = await Promise.race([pieces.next(), gone]);
      if (next === 'gone') return;
      piece = next;
    }
    end(exchange, piece.done ? undefined : piece.value.text);
  } catch (error) {
    exchange.log.error({ err: error }, 'streaming the response failed');
    end(exchange);
  } finally {
    void pieces.return();
    finish(exchange, 200);
  }
};

/**
 * The one function that writes a response of the service: REST bodies, the Error body, tRPC's
 * envelopes and JSON lines, 304s, 503s, the pages outside the API and their errors. It adds what
 * every response carries (the request id, the security headers, `Retry-After` on a 503), writes
 * status, headers and body in one call with their `Content-Length`, and leaves the access line.
 */
export const sendReply = (exchange: Exchange, reply: Reply): void => {
  const { res } = exchange;
  // A crash after the head went out: nothing sound can follow it on this connection.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if ('stream' in reply) {
    void sendStream(exchange, reply);
    return;
  }
  if ('empty' in reply) {
    res.writeHead(reply.status, headersOf(exchange, reply.status, reply.headers, { page: reply.page, unvaried: reply.unvaried }) as string[]);
    end(exchange);
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
  end(exchange, body);
  finish(exchange, status);
};
