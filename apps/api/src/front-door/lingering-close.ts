import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * After an answer given before the request's body was read (a 413, or a 401, 403 or 415 that need
 * not read it), the client is still sending, and most clients read an answer only once they have
 * sent their body: closing at once would cut them off with a reset instead of the answer. So the
 * connection lingers, reading and dropping what arrives, until the body ends (as nginx's
 * lingering close does), within these bounds. A client that sends past them is not sending a body
 * by mistake, and is cut off.
 */
export const LINGER_MAX_BYTES = 8 * 1024 * 1024;
export const LINGER_MAX_MS = 5_000;

/** Ends a response whose request's body is still arriving, once it has arrived, within the bounds above. */
export const endLingering = (req: IncomingMessage, res: ServerResponse, last?: string | Buffer): void => {
  if (last !== undefined) res.write(last);
  let dropped = 0;
  const cutOff = () => {
    clearTimeout(cut);
    res.end();
    req.socket.destroy();
  };
  const cut = setTimeout(cutOff, LINGER_MAX_MS).unref();
  const arrived = () => {
    clearTimeout(cut);
    res.end();
  };
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) cutOff();
  });
  req.once('end', arrived).once('close', arrived).once('error', arrived);
  req.resume();
};
