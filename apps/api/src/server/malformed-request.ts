import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Node answers a request it cannot parse (bad header characters, headers over 16 KiB, a broken
 * request line) or that arrives too slowly with a bare status line before any handler runs. This
 * gives those answers the Error body every other error has.
 */
export const answerMalformedRequest = (error: Error & { code?: string }, socket: Duplex): void => {
  // Only a connection that has not answered anything yet gets an answer. Bytes that follow a
  // response (an unframed body after a request the server already answered) would otherwise
  // receive a second response the client is not waiting for; those connections just close.
  if (!socket.writable || error.code === 'ECONNRESET' || (socket as Socket).bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const answer =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? { status: 408, reason: 'Request Timeout', code: 'TIMEOUT', message: 'The request took too long to arrive.' }
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? { status: 400, reason: 'Bad Request', code: 'BAD_REQUEST', message: 'The request headers are too large.' }
        : { status: 400, reason: 'Bad Request', code: 'BAD_REQUEST', message: 'The request is not valid HTTP.' };
  const body = JSON.stringify({ code: answer.code, message: answer.message, status: answer.status });
  socket.end(
    [
      `HTTP/1.1 ${answer.status} ${answer.reason}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      `X-Request-Id: ${randomUUID()}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
};
