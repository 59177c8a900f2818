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
 * Node keeps a socket's peer address on the socket the first time it is asked for, as a new
 * property: asked at different moments (admission asks only for a key it has not seen), sockets
 * end up with different hidden classes, and beside pg's own sockets Node's stream code then sees
 * too many to stay fast (docs/decisions/2026-11-28-one-shape-per-connection.md). Asking once, as each
 * connection opens, gives every one of them the same.
 */
const readPeerAddress = (socket: Socket): string | undefined => socket.remoteAddress;

/**
 * Counts the open connections of one server, puts those taken past the limit in `pastTheLimit`
 * and reads each one's peer address as it opens. A connection that sends nothing needs no watch of its own: Node times its headers from when it
 * connected (`headersTimeout`), and server.ts closes it without an answer.
 */
export const trackConnections = (server: Server, { maxConnections, pastTheLimit }: ConnectionsOptions): void => {
  let open = 0;
  server.maxConnections = maxConnections + CONNECTIONS_PAST_THE_LIMIT;
  server.on('connection', (socket: Socket) => {
    open++;
    readPeerAddress(socket);
    if (open > maxConnections) pastTheLimit.add(socket);
    socket.once('close', () => {
      open--;
    });
  });
};
