import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { type Exchange, REQUEST_ID_HEADER, logOf } from '../exchange/exchange.js';
import { bodyMayArrive } from '../exchange/read-body.js';
import { type Chunk, type ChunkedReply, JSON_TYPE, type Reply, type Transport } from '../exchange/reply.js';
import { ALWAYS_WRITTEN_CHARACTERS, UNSENT_RETRY_AFTER_SECONDS, tooMuchHeld } from './held-answers.js';
import { endLingering } from './lingering-close.js';
import { API_SECURITY_HEADERS, PAGE_SECURITY_HEADERS } from './security-headers.js';
import { watchSending } from './send-timeout.js';

/**
 * Whether the request's body has not all arrived: a request answered before its body was read (a
 * refusal) closes its connection, after the rest of the body (lingering-close.ts). A request that
 * has no body is not `complete` until its 'request' event is over, yet leaves nothing to read.
 */
const bodyLeft = (req: IncomingMessage): boolean =>
  !req.complete && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0') && bodyMayArrive(req);

/**
 * Whether the client is gone: the connection is closed, or its client closed its side before its
 * request was whole, which it can then never finish (nginx logs such a request 499 too).
 */
const clientLeft = ({ socket, complete }: IncomingMessage) => !socket.writable || (socket.readableEnded && !complete);

/**
 * What the access line records for a reply nothing of which was sent: the client left first
 * (nginx's 499, tRPC's CLIENT_CLOSED_REQUEST). The line records what was sent, not what would have been.
 */
const CLIENT_LEFT_STATUS = 499;

/**
 * The headers every reply carries, then the reply's own: the request id, the security headers,
 * and `Connection: close` when the service is stopping or the request's body was not read. A
 * 503's `Retry-After` is the reply's own (exchange/failure.ts `withRetryAfter`).
 */
const headersOf = ({ reqId, req, door }: Exchange, { headers: own, page }: Reply & { page?: boolean }): OutgoingHttpHeader[] => {
  const headers: OutgoingHttpHeader[] = [REQUEST_ID_HEADER, reqId, ...(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)];
  for (const value of own) headers.push(value);
  if (door.stopping || bodyLeft(req)) headers.push('Connection', 'close');
  return headers;
};

/**
 * What the system did not take at once waits in the process for the client to come for it: it is
 * counted against the held answers' budget, and the client must take some of it in time.
 */
const holdUnsent = ({ req, door }: Exchange) => {
  watchSending(req.socket, door.sendTimeoutMs);
  door.held.hold(req.socket, door.clientAddress(req));
};

/** Ends the response: at once, or, with a body still arriving, once it has arrived (bounded). */
const end = (exchange: Exchange, last?: string | Buffer) => {
  const { req, res } = exchange;
  if (bodyLeft(req)) endLingering(req, res, last);
  else res.end(last);
  if (req.socket.writableLength > 0) holdUnsent(exchange);
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

/** What a body's chunks end with when the iterator ends without a last one. */
const NOTHING_MORE = { text: '', last: true };

/**
 * What of a later chunk is written: the chunk, when it is small or the held answers' budget has
 * room for it; otherwise its calls' refusal (503), so a reader that is slow holds no more than
 * any other client's answer would (held-answers.ts).
 */
const weighed = (exchange: Exchange, reply: ChunkedReply, chunk: Chunk): string => {
  if (chunk.text.length <= ALWAYS_WRITTEN_CHARACTERS) return chunk.text;
  const { door, req } = exchange;
  return door.held.fits(Buffer.byteLength(chunk.text), door.clientAddress(req)) ? chunk.text : reply.refused(exchange, chunk, tooMuchHeld());
};

/**
 * A body in chunks, each written as soon as it is ready. The next chunk is asked for only once the
 * socket has taken the one before (or it was small), and is weighed before it is written
 * (`weighed`): a connection that does not read stalls its own stream, never the heap. A client
 * that goes away is not waited for; chunks that fail after the head went out end the body with
 * what was written.
 */
const writeChunks = async (exchange: Exchange, reply: ChunkedReply, headers: OutgoingHttpHeader[]): Promise<void> => {
  const { res } = exchange;
  const { status, first, rest } = reply;
  headers.push('Content-Type', JSON_TYPE, 'Transfer-Encoding', 'chunked');
  res.writeHead(status, headers as string[]);
  const gone = new Promise<'gone'>((resolve) => {
    res.once('close', () => {
      resolve('gone');
    });
  });
  let chunk = first;
  let text = first.text;
  try {
    while (!chunk.last) {
      if (!res.write(text)) {
        holdUnsent(exchange);
        await drained(res);
      }
      const next = await Promise.race([rest.next(), gone]);
      if (next === 'gone') return;
      chunk = next.done ? NOTHING_MORE : next.value;
      text = weighed(exchange, reply, chunk);
    }
    end(exchange, text);
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
  if (clientLeft(exchange.req)) {
    exchange.req.socket.destroy();
    finish(exchange, CLIENT_LEFT_STATUS);
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

/**
 * A transport's answer, unless it is a large one the process has no room to hold for a client that
 * may not read it (held-answers.ts): that one is refused as the transport refuses, before a byte
 * of it is written. A small answer, a create's included, is always written.
 */
export const writeAnswer = (exchange: Exchange, transport: Transport, reply: Reply): void => {
  // A streamed answer's first chunk is weighed as a body: on SQLite it is often the whole answer.
  const first = reply.kind === 'body' ? reply.body : reply.kind === 'chunked' ? reply.first.text : undefined;
  if (first === undefined || first.length <= ALWAYS_WRITTEN_CHARACTERS) {
    writeReply(exchange, reply);
    return;
  }
  const { door, req } = exchange;
  if (door.held.fits(Buffer.byteLength(first), door.clientAddress(req))) {
    writeReply(exchange, reply);
    return;
  }
  if (reply.kind === 'chunked') void reply.rest.return?.();
  writeReply(exchange, transport.refuse(exchange, tooMuchHeld(), ['Retry-After', UNSENT_RETRY_AFTER_SECONDS]));
};

/** A transport that failed to answer: its refusal of the whole request, written as any reply. */
export const writeFailure = (exchange: Exchange, transport: Transport, error: unknown): void => {
  writeReply(exchange, transport.refuse(exchange, error));
};
