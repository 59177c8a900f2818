import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections taken past `maxConnections`, so that a health check still gets through and every
 * other request a clean 503 rather than a reset; past these, Node refuses a connection outright.
 */
export const CONNECTIONS_PAST_THE_LIMIT = 64;

/**
 * Connections past their address's share that may be open at once, all addresses together, and
 * how long each may wait for its request: a client whose pool opened more than its share while
 * answers were slow learns so from a 503 it can act on (and its health checks are answered as
 * usual), while a flood of idle connections from one address costs at most this many sockets for
 * this long; those past them are closed as they open.
 */
export const CONNECTIONS_PAST_THE_SHARE = 256;
export const PAST_THE_SHARE_WAIT_MS = 1_000;

/** Why a connection past the service's limit, or past its address's share, is refused: "The service …". */
const PAST_THE_LIMIT = 'has as many connections open as it serves';
const PAST_THE_SHARE = 'has as many connections open from this address as it serves one address';

export interface ConnectionsOptions {
  maxConnections: number;
  /** Connections one peer address may hold open at once, on every listener together. */
  maxConnectionsPerAddress: number;
  /** Whether a peer address is a proxy the service trusts: its connections carry many clients, and only `maxConnections` bounds them. */
  isTrustedProxy: (address: string) => boolean;
  /** Where the connections taken past a bound are put, with why, for the front door to refuse. */
  refusedConnections: WeakMap<Socket, string>;
}

/**
 * Node adds a socket's peer address to it when first asked, so it is asked once, as each connection
 * opens: every socket keeps one shape, which Node's stream code needs to stay fast
 * (docs/decisions/2026-11-28-one-shape-per-connection.md).
 */
const readPeerAddress = (socket: Socket): string => socket.remoteAddress ?? '';

/**
 * Counts the open connections of every listener of the service together (the public port and the
 * metrics port), in all and per peer address: one address cannot hold the connections every other
 * client needs (nginx's `limit_conn`). A connection past its address's share, or past the service's
 * limit, goes in `refusedConnections`: the front door answers its one request 503 with
 * `Retry-After` and `Connection: close` (a health check as usual). A connection that sends nothing
 * needs no watch of its own: Node times its headers from when it connected (`headersTimeout`), and
 * server.ts closes it without an answer; one past its share, within PAST_THE_SHARE_WAIT_MS.
 */
export const countConnections = ({ maxConnections, maxConnectionsPerAddress, isTrustedProxy, refusedConnections }: ConnectionsOptions) => {
  let open = 0;
  let pastTheShare = 0;
  const perAddress = new Map<string, number>();
  const leftPastTheShare = () => {
    pastTheShare--;
  };
  /**
   * Its request is answered 503 (a health check as usual), and the connection closes; one that
   * has sent none by PAST_THE_SHARE_WAIT_MS is closed by Node's server, which closes a socket whose
   * timeout nobody listens for.
   */
  const refusePastTheShare = (socket: Socket) => {
    if (pastTheShare >= CONNECTIONS_PAST_THE_SHARE) {
      socket.destroy();
      return;
    }
    pastTheShare++;
    socket.once('close', leftPastTheShare);
    socket.setTimeout(PAST_THE_SHARE_WAIT_MS);
    refusedConnections.set(socket, PAST_THE_SHARE);
  };
  const onConnection = (socket: Socket) => {
    const address = readPeerAddress(socket);
    const held = perAddress.get(address) ?? 0;
    if (held >= maxConnectionsPerAddress && !isTrustedProxy(address)) {
      refusePastTheShare(socket);
      return;
    }
    perAddress.set(address, held + 1);
    open++;
    if (open > maxConnections) refusedConnections.set(socket, PAST_THE_LIMIT);
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
      // Before Node's own listener: a connection is counted before any request of it is parsed.
      server.prependListener('connection', onConnection);
      // After it: the connection's parser is Node's to wrap.
      server.on('connection', parseNothingOnceClosed);
    },
  };
};

/**
 * Requests a connection may have sent ahead of the one being answered. Node parses every request
 * in what it has read and would dispatch them all at once, each answer then built and held behind
 * an unread one. Past this many waiting, the connection closes once the last of them is answered:
 * a client that pipelines resends what was left unanswered (RFC 9112 §9.3.2). One that sends as
 * many again past them, or past an answer that closed its connection, is not reading what it is
 * told, and its connection is closed at once.
 */
export const MAX_PIPELINED_REQUESTS = 32;

/**
 * Bytes of requests the process holds parsed, all connections together, while they wait their turn
 * or will never run: Node makes each request it reads an object in the heap, whether or not it
 * runs, and keeps it until its turn or until its connection closes. A request that would pass this
 * closes its connection at once.
 */
export const MAX_WAITING_REQUEST_BYTES = 4 * 1024 * 1024;

/** What Node's objects for one parsed request take in the heap beside its URL and headers. */
const PARSED_REQUEST_BYTES = 2048;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** What Node's server gives each request its parser has read, and what it tells the parser back. */
type ParserWithRequests = { onIncoming?: (req: IncomingMessage, keepAlive: boolean) => number };

/**
 * What the parser is told for a request of a closed connection: an error of the parser's own
 * (`HPE_CB_HEADERS_COMPLETE`), which stops it where it is; Node then hands the connection to the
 * server's `clientError` listener, which has nothing to answer on a closed one.
 */
export const STOPPED_PARSING = 'HPE_CB_HEADERS_COMPLETE';
const STOP_PARSING = -1;

/**
 * Node parses all of a read (up to 64 KiB, a thousand short requests) before it looks at its
 * connection again, and keeps every request it makes of it until the connection's close is seen,
 * after every other connection with bytes waiting has been read: a few hundred connections closed
 * in one go would fill the heap. Once a connection is closed, its parser makes nothing more of
 * what is left.
 */
const parseNothingOnceClosed = (socket: Socket): void => {
  const parser = (socket as Socket & { parser?: ParserWithRequests }).parser;
  const serve = parser?.onIncoming;
  if (parser === undefined || serve === undefined) return;
  parser.onIncoming = (req, keepAlive) => (socket.destroyed ? STOP_PARSING : serve(req, keepAlive));
};

/** What a connection's requests that are not running hold: those waiting their turn, those never to run, and their bytes. */
interface Held {
  waiting: number;
  neverRun: number;
  bytes: number;
}

const heldBy = new WeakMap<Socket, Held>();
let heldBytes = 0;

const weigh = (req: IncomingMessage): number => {
  let bytes = PARSED_REQUEST_BYTES + (req.url?.length ?? 0);
  for (const field of req.rawHeaders) bytes += field.length;
  return bytes;
};

/** A connection's holding, counted from its first request that does not run at once until it closes. */
const heldOn = (socket: Socket): Held => {
  let held = heldBy.get(socket);
  if (held === undefined) {
    const entry: Held = { waiting: 0, neverRun: 0, bytes: 0 };
    heldBy.set(socket, entry);
    socket.once('close', () => {
      heldBytes -= entry.bytes;
      entry.bytes = 0;
    });
    held = entry;
  }
  return held;
};

/** Holds `bytes` for `held`'s connection, or closes the connection if that would pass the budget. */
const hold = (socket: Socket, held: Held, bytes: number): boolean => {
  if (heldBytes + bytes > MAX_WAITING_REQUEST_BYTES) {
    socket.destroy();
    return false;
  }
  held.bytes += bytes;
  heldBytes += bytes;
  return true;
};

/**
 * One request at a time per connection, as servers built for the internet serve pipelined
 * requests (nginx, h2o): Node gives a response its connection only once the answer before it has
 * left the process whole, so a request whose response has no connection yet waits for it before
 * it runs. Once MAX_PIPELINED_REQUESTS wait, the last of them closes the connection. A request
 * with nothing before it runs at once.
 */
export const oneAtATime = (serve: Listener): Listener => (req, res) => {
  const socket = req.socket;
  // A connection whose last answer is written runs nothing more it sends.
  const neverRuns = socket.writableEnded || (res.socket === null && (heldBy.get(socket)?.waiting ?? 0) >= MAX_PIPELINED_REQUESTS);
  if (!neverRuns && res.socket !== null) {
    serve(req, res);
    return;
  }
  const held = heldOn(socket);
  const bytes = weigh(req);
  if (neverRuns) {
    held.neverRun++;
    if (held.neverRun > MAX_PIPELINED_REQUESTS) socket.destroy();
    else hold(socket, held, bytes);
    return;
  }
  if (!hold(socket, held, bytes)) return;
  held.waiting++;
  if (held.waiting === MAX_PIPELINED_REQUESTS) res.shouldKeepAlive = false;
  res.once('socket', () => {
    held.waiting--;
    held.bytes -= bytes;
    heldBytes -= bytes;
    serve(req, res);
  });
};
