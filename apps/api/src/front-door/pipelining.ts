import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

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
