import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections taken past `maxConnections`, so that a health check still gets through and every
 * other request a clean 503 rather than a reset; past these, Node refuses a connection outright.
 */
export const CONNECTIONS_PAST_THE_LIMIT = 64;

/** How often connections that have sent nothing yet are looked at. */
const SILENCE_CHECK_EVERY_MS = 1_000;

export interface ConnectionsOptions {
  maxConnections: number;
  /** Where the connections taken past `maxConnections` are put, for the front door to refuse. */
  pastTheLimit: WeakSet<Socket>;
  /** How long a new connection may stay silent before it is closed: the headers' own bound. */
  headersTimeoutMs: number;
}

/**
 * The open connections of one server: how many there are, which were taken past the limit (put in
 * `pastTheLimit`), and those that have not sent a byte. Node bounds a request's headers from their first byte
 * (`headersTimeout`) but leaves a connection that sends nothing open for good; these are closed
 * once `headersTimeoutMs` has passed, as nginx's `client_header_timeout` closes them.
 */
export const trackConnections = (server: Server, { maxConnections, pastTheLimit, headersTimeoutMs }: ConnectionsOptions) => {
  let open = 0;
  const silent = new Map<Socket, number>();
  server.maxConnections = maxConnections + CONNECTIONS_PAST_THE_LIMIT;

  server.on('connection', (socket: Socket) => {
    open++;
    if (open > maxConnections) pastTheLimit.add(socket);
    silent.set(socket, performance.now());
    socket.once('close', () => {
      open--;
      silent.delete(socket);
    });
  });

  const closeSilent = setInterval(() => {
    const cutOff = performance.now() - headersTimeoutMs;
    for (const [socket, openedAt] of silent) {
      if (socket.bytesRead > 0) silent.delete(socket);
      else if (openedAt <= cutOff) socket.destroy();
    }
  }, SILENCE_CHECK_EVERY_MS).unref();

  return {
    stop: () => {
      clearInterval(closeSilent);
    },
  };
};

export type Connections = ReturnType<typeof trackConnections>;
