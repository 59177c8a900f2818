import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections taken past `maxConnections`, so that a health check still gets through and every
 * other request a clean 503 rather than a reset; past these, Node refuses a connection outright.
 */
export const CONNECTIONS_PAST_THE_LIMIT = 64;

export interface ConnectionsOptions {
  maxConnections: number;
  /** Where the connections taken past `maxConnections` are put, for the front door to refuse. */
  pastTheLimit: WeakSet<Socket>;
}

/**
 * Counts the open connections of one server and puts those taken past the limit in `pastTheLimit`.
 * A connection that sends nothing needs no watch of its own: Node times its headers from when it
 * connected (`headersTimeout`), and server.ts closes it without an answer.
 */
export const trackConnections = (server: Server, { maxConnections, pastTheLimit }: ConnectionsOptions): void => {
  let open = 0;
  server.maxConnections = maxConnections + CONNECTIONS_PAST_THE_LIMIT;
  server.on('connection', (socket: Socket) => {
    open++;
    if (open > maxConnections) pastTheLimit.add(socket);
    socket.once('close', () => {
      open--;
    });
  });
};
