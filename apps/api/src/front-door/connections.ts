import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections taken past `maxConnections`, so that a health check still gets through and every
 * other request a clean 503 rather than a reset; past these, Node refuses a connection outright.
 */
export const CONNECTIONS_PAST_THE_LIMIT = 64;

/**
 * Connections past their address's share that may be waiting for their one answer at once, all
 * addresses together, and how long each may take to send its request: a client whose pool opened
 * more than its share while answers were slow learns so from a 503 it can act on, while a flood
 * of idle connections from one address costs at most this many sockets for this long, and those
 * past them are closed as they open.
 */
export const CONNECTIONS_PAST_THE_SHARE = 256;
export const PAST_THE_SHARE_WAIT_MS = 1_000;

export interface ConnectionsOptions {
  maxConnections: number;
  /** Connections one peer address may hold open at once, on every listener together. */
  maxConnectionsPerAddress: number;
  /** Whether a peer address is a proxy the service trusts: its connections carry many clients, and only `maxConnections` bounds them. */
  isTrustedProxy: (address: string) => boolean;
  /** Where the connections taken past `maxConnections` or past their address's share are put, for the front door to refuse. */
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
 * Counts the open connections of every listener of the service together (the public port and the
 * metrics port), in all and per peer address: one address cannot hold the connections every other
 * client needs (nginx's `limit_conn`). A connection past its address's share gets one answer, a
 * 503 with `Retry-After` and `Connection: close`, if it sends its request within
 * PAST_THE_SHARE_WAIT_MS and fewer than CONNECTIONS_PAST_THE_SHARE wait so; otherwise it is closed.
 * Those taken past the service's limit go in `pastTheLimit` too. A connection that sends nothing
 * needs no watch of its own: Node times its headers from when it connected (`headersTimeout`), and
 * server.ts closes it without an answer.
 */
export const countConnections = ({ maxConnections, maxConnectionsPerAddress, isTrustedProxy, pastTheLimit }: ConnectionsOptions) => {
  let open = 0;
  let pastTheShare = 0;
  const perAddress = new Map<string, number>();
  const leftPastTheShare = () => {
    pastTheShare--;
  };
  const onConnection = (socket: Socket) => {
    const address = readPeerAddress(socket);
    const held = perAddress.get(address) ?? 0;
    if (held >= maxConnectionsPerAddress && !isTrustedProxy(address)) {
      if (pastTheShare >= CONNECTIONS_PAST_THE_SHARE) {
        socket.destroy();
        return;
      }
      pastTheShare++;
      pastTheLimit.add(socket);
      // Node's server closes a socket whose timeout passes with nobody listening for it.
      socket.setTimeout(PAST_THE_SHARE_WAIT_MS);
      socket.once('close', leftPastTheShare);
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
  };
  return {
    /** Counts `server`'s connections with the others'. */
    track: (server: Server): void => {
      server.maxConnections = maxConnections + CONNECTIONS_PAST_THE_LIMIT + CONNECTIONS_PAST_THE_SHARE;
      server.on('connection', onConnection);
    },
  };
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
