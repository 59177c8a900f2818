import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { type RequestContext, REQUEST_ID_HEADER, logOf } from '../http/request-context.js';
import { bodyMayArrive } from '../http/read-body.js';
import { type Chunk, type ChunkedReply, JSON_TYPE, type Reply, type Handler } from '../http/reply.js';
import { ALWAYS_WRITTEN_CHARACTERS, UNSENT_RETRY_AFTER_SECONDS, tooMuchHeld } from './unsent-bytes.js';
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
 * 503's `Retry-After` is the reply's own (http/failure.ts `withRetryAfter`).
 */
const headersOf = ({ reqId, req, server: serverContext }: RequestContext, { headers: own, page }: Reply & { page?: boolean }): OutgoingHttpHeader[] => {
  const headers: OutgoingHttpHeader[] = [REQUEST_ID_HEADER, reqId, ...(page ? PAGE_SECURITY_HEADERS : API_SECURITY_HEADERS)];
  for (const value of own) headers.push(value);
  if (serverContext.stopping || bodyLeft(req)) headers.push('Connection', 'close');
  return headers;
};

/**
 * What the system did not take at once waits in the process for the client to come for it: it is
 * counted against the unsent-bytes budget, and the client must take some of it in time.
 */
const holdUnsent = ({ req, server: serverContext }: RequestContext) => {
  watchSending(req.socket, serverContext.sendTimeoutMs);
  serverContext.unsentBytes.hold(req.socket, serverContext.clientAddress(req));
};

/** Ends the response: at once, or, with a body still arriving, once it has arrived (bounded). */
const end = (context: RequestContext, last?: string | Buffer) => {
  const { req, res } = context;
  if (bodyLeft(req)) endLingering(req, res, last);
  else res.end(last);
  if (req.socket.writableLength > 0) holdUnsent(context);
};

/** The exchange is over: its access line, and whoever listens for its end. */
const finish = (context: RequestContext, status: number) => {
  const elapsedMs = performance.now() - context.startedAt;
  context.server.accessLog(context.reqId, context.req.method, context.req.url, status, Math.round(elapsedMs), context.traceIds);
  context.onFinish?.(context, status, elapsedMs);
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
 * What of a later chunk is written: the chunk, when it is small or the unsent-bytes budget has
 * room for it; otherwise its calls' refusal (503), so a reader that is slow holds no more than
 * any other client's answer would (unsent-bytes.ts).
 */
const weighed = (context: RequestContext, reply: ChunkedReply, chunk: Chunk): string => {
  if (chunk.text.length <= ALWAYS_WRITTEN_CHARACTERS) return chunk.text;
  const { server: serverContext, req } = context;
  return serverContext.unsentBytes.fits(Buffer.byteLength(chunk.text), serverContext.clientAddress(req)) ? chunk.text : reply.refused(context, chunk, tooMuchHeld());
};

/**
 * A body in chunks, each written as soon as it is ready. The next chunk is asked for only once the
 * socket has taken the one before (or it was small), and is weighed before it is written
 * (`weighed`): a connection that does not read stalls its own stream, never the heap. A client
 * that goes away is not waited for; chunks that fail after the head went out end the body with
 * what was written.
 */
const writeChunks = async (context: RequestContext, reply: ChunkedReply, headers: OutgoingHttpHeader[]): Promise<void> => {
  const { res } = context;
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
        holdUnsent(context);
        await drained(res);
      }
      const next = await Promise.race([rest.next(), gone]);
      if (next === 'gone') return;
      chunk = next.done ? NOTHING_MORE : next.value;
      text = weighed(context, reply, chunk);
    }
    end(context, text);
  } catch (error) {
    logOf(context).error({ err: error }, 'streaming the response failed');
    end(context);
  } finally {
    void rest.return?.();
    finish(context, status);
  }
};

/**
 * The one function that writes a response of the service, whatever answered it: it adds what
 * every response carries, writes status, headers and body in one call with their
 * `Content-Length` (or the body's chunks as they come), and leaves the access line.
 */
export const writeReply = (context: RequestContext, reply: Reply): void => {
  const { res } = context;
  // A crash after the head went out: nothing sound can follow it on this connection.
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (clientLeft(context.req)) {
    context.req.socket.destroy();
    finish(context, CLIENT_LEFT_STATUS);
    return;
  }
  const headers = headersOf(context, reply);
  if (reply.kind === 'chunked') {
    void writeChunks(context, reply, headers);
    return;
  }
  if (reply.kind === 'body') headers.push('Content-Type', reply.type ?? JSON_TYPE, 'Content-Length', Buffer.byteLength(reply.body));
  res.writeHead(reply.status, headers as string[]);
  end(context, reply.kind === 'body' ? reply.body : undefined);
  finish(context, reply.status);
};

/**
 * A transport's answer, unless it is a large one the process has no room to hold for a client that
 * may not read it (unsent-bytes.ts): that one is refused as the transport refuses, before a byte
 * of it is written. A small answer, a create's included, is always written.
 */
export const writeAnswer = (context: RequestContext, transport: Handler, reply: Reply): void => {
  // A streamed answer's first chunk is weighed as a body: on SQLite it is often the whole answer.
  const first = reply.kind === 'body' ? reply.body : reply.kind === 'chunked' ? reply.first.text : undefined;
  if (first === undefined || first.length <= ALWAYS_WRITTEN_CHARACTERS) {
    writeReply(context, reply);
    return;
  }
  const { server: serverContext, req } = context;
  if (serverContext.unsentBytes.fits(Buffer.byteLength(first), serverContext.clientAddress(req))) {
    writeReply(context, reply);
    return;
  }
  if (reply.kind === 'chunked') void reply.rest.return?.();
  writeReply(context, transport.refuse(context, tooMuchHeld(), ['Retry-After', UNSENT_RETRY_AFTER_SECONDS]));
};

/** A transport that failed to answer: its refusal of the whole request, written as any reply. */
export const writeFailure = (context: RequestContext, transport: Handler, error: unknown): void => {
  writeReply(context, transport.refuse(context, error));
};
