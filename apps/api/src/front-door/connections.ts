import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections taken past `maxConnections`, so that a health check still gets through and every
 * other request a clean 503 rather than a reset; past these, Node refuses a connection outright.
 */
export const CONNECTIONS_PAST_THE_LIMIT = 64;

export interface ConnectionsOptions {
  maxConnections: number;
  /** Connections one peer address may hold open at once; those past it are closed as they open. */
  maxConnectionsPerAddress: number;
  /** Whether a peer address is a proxy the service trusts: its connections carry many clients, and only `maxConnections` bounds them. */
  isTrustedProxy: (address: string) => boolean;
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
const readPeerAddress = (socket: Socket): string => socket.remoteAddress ?? '';

/**
 * Counts the open connections of one server, in all and per peer address. A connection past its
 * address's share is closed as it opens, before it costs more than its accept: one address
 * cannot hold the connections every other client needs (nginx's `limit_conn`). Those taken past
 * the server's limit go in `pastTheLimit`. A connection that sends nothing needs no watch of its
 * own: Node times its headers from when it connected (`headersTimeout`), and server.ts closes it
 * without an answer.
 */
export const trackConnections = (server: Server, { maxConnections, maxConnectionsPerAddress, isTrustedProxy, pastTheLimit }: ConnectionsOptions): void => {
  let open = 0;
  const perAddress = new Map<string, number>();
  server.maxConnections = maxConnections + CONNECTIONS_PAST_THE_LIMIT;
  server.on('connection', (socket: Socket) => {
    const address = readPeerAddress(socket);
    const held = perAddress.get(address) ?? 0;
    if (held >= maxConnectionsPerAddress && !isTrustedProxy(address)) {
      socket.destroy();
      return;
    }
    perAddress.set(address, held + 1);
    open++;
    if (open > maxConnections) pastTheLimit.add(socket);
    socket.once('close', () => {
      open--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
};
