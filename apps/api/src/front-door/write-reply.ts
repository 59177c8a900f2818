import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { STORAGE_RETRY_AFTER_SECONDS } from '@petstore/core';
import { type Exchange, logOf } from '../exchange/exchange.js';
import type { ChunkedReply, Reply, Transport } from '../exchange/reply.js';
import { endLingering } from './lingering-close.js';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from './security-headers.js';
import { watchSending } from './send-timeout.js';

/** What a body is unless a reply says otherwise. */
const JSON_TYPE = 'application/json';

/**
 * Whether the request's body has not all arrived: a request answered before its body was read (a
 * refusal) closes its connection, after the rest of the body (lingering-close.ts). A request that
 * has no body is not `complete` until its 'request' event is over, yet leaves nothing to read.
 */
const bodyLeft = (req: IncomingMessage): boolean =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');

/**
 * The headers every reply carries, then the reply's own: the request id, the security headers,
 * `Retry-After` on every 503 that does not say it already, and `Connection: close` when the
 * service is stopping or the request's body was not read.
 */
const headersOf = ({ reqId, req, door }: Exchange, { status, headers: own, page }: Reply & { page?: boolean }): OutgoingHttpHeader[] => {
  const headers: OutgoingHttpHeader[] = ['X-Request-Id', reqId, ...(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)];
  for (const value of own) headers.push(value);
  if (status === 503 && !own.includes('Retry-After')) headers.push('Retry-After', STORAGE_RETRY_AFTER_SECONDS);
  if (door.stopping || bodyLeft(req)) headers.push('Connection', 'close');
  return headers;
};

/** Ends the response: at once, or, with a body still arriving, once it has arrived (bounded). */
const end = ({ req, res, door }: Exchange, last?: string | Buffer) => {
  if (bodyLeft(req)) endLingering(req, res, last);
  else res.end(last);
  // What the system did not take at once waits in the process, and so does any answer queued
  // behind it on this connection: the client must come for it.
  if (req.socket.writableLength > 0) watchSending(req.socket, door.sendTimeoutMs);
};

/** The exchange is over: its access line, and whoever listens for its end. */
const finish = (exchange: Exchange, status: number) => {
  const elapsedMs = performance.now() - exchange.startedAt;
  exchange.door.accessLog(exchange.reqId, exchange.req.method, exchange.req.url, status, Math.round(elapsedMs), exchange.traceIds);
  exchange.onFinish?.(exchange, status, elapsedMs);
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
 * A body in chunks, each written as soon as it is ready. A client that goes away is not waited
 * for; chunks that fail after the head went out end the body with what was written.
 */
const writeChunks = async (exchange: Exchange, { status, first, rest }: ChunkedReply, headers: OutgoingHttpHeader[]): Promise<void> => {
  const { res } = exchange;
  headers.push('Content-Type', JSON_TYPE, 'Transfer-Encoding', 'chunked');
  res.writeHead(status, headers as string[]);
  const gone = new Promise<'gone'>((resolve) => {
    res.once('close', () => {
      resolve('gone');
    });
  });
  let chunk = first;
  try {
    while (!chunk.last) {
      if (!res.write(chunk.text)) {
        watchSending(exchange.req.socket, exchange.door.sendTimeoutMs);
        await drained(res);
      }
      const next = await Promise.race([rest.next(), gone]);
      if (next === 'gone') return;
      chunk = next.done ? { text: '', last: true } : next.value;
    }
    end(exchange, chunk.text);
  } catch (error) {
    logOf(exchange).error({ err: error }, 'streaming the response failed');
    end(exchange);
  } finally {
    void rest.return?.();
    finish(exchange, status);
  }
};

/**
 * The one function that writes a response of the service, whatever answered it: it adds what
 * every response carries, writes status, headers and body in one call with their
 * `Content-Length` (or the body's chunks as they come), and leaves the access line.
 */
export const writeReply = (exchange: Exchange, reply: Reply): void => {
  const { res } = exchange;
  // A crash after the head went out: nothing sound can follow it on this connection.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers = headersOf(exchange, reply);
  if (reply.kind === 'chunked') {
    void writeChunks(exchange, reply, headers);
    return;
  }
  if (reply.kind === 'body') headers.push('Content-Type', reply.type ?? JSON_TYPE, 'Content-Length', Buffer.byteLength(reply.body));
  res.writeHead(reply.status, headers as string[]);
  end(exchange, reply.kind === 'body' ? reply.body : undefined);
  finish(exchange, reply.status);
};

/** A transport that failed to answer: its refusal of the whole request, written as any reply. */
export const writeFailure = (exchange: Exchange, transport: Transport, error: unknown): void => {
  writeReply(exchange, transport.refuse(exchange, error));
};
