import type { IncomingMessage, Server, ServerResponse } from 'node:http';
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
 * Node adds a socket's peer address to it when first asked, so it is asked once, as each connection
 * opens: every socket keeps one shape, which Node's stream code needs to stay fast
 * (docs/decisions/2026-11-28-one-shape-per-connection.md).
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

/**
 * Requests a connection may have sent ahead of the one being answered. Node parses every request
 * in what it has read and would dispatch them all at once, each answer then built and held behind
 * an unread one. Past this many waiting, the connection closes once the last of them is answered:
 * a client that pipelines resends what was left unanswered (RFC 9112 §9.3.2).
 */
export const MAX_PIPELINED_REQUESTS = 32;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests waiting on each connection that has any, behind the one being answered. */
const waiting = new WeakMap<Socket, number>();

/**
 * One request at a time per connection, as servers built for the internet serve pipelined
 * requests (nginx, h2o): Node gives a response its connection only once the answer before it has
 * left the process whole, so a request whose response has no connection yet waits for it before
 * it runs. Meanwhile the connection is not read, and once MAX_PIPELINED_REQUESTS wait, the last
 * of them closes it. A request with nothing before it runs at once.
 */
export const oneAtATime = (serve: Listener): Listener => (req, res) => {
  if (res.socket !== null) {
    serve(req, res);
    return;
  }
  const socket = req.socket;
  const ahead = (waiting.get(socket) ?? 0) + 1;
  // Past the depth: never run, never answered; the connection closes before its turn.
  if (ahead > MAX_PIPELINED_REQUESTS) return;
  if (ahead === MAX_PIPELINED_REQUESTS) res.shouldKeepAlive = false;
  waiting.set(socket, ahead);
  socket.pause();
  res.once('socket', () => {
    const left = (waiting.get(socket) ?? 1) - 1;
    if (left > 0) waiting.set(socket, left);
    else {
      waiting.delete(socket);
      socket.resume();
    }
    serve(req, res);
  });
};
