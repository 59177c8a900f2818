import type { Socket } from 'node:net';

const watched = new WeakSet<Socket>();

/** Bytes of `socket` the system has taken: those written, less those still waiting in the process. */
const taken = (socket: Socket) => socket.bytesWritten - socket.writableLength;

/**
 * Called when an answer did not all leave at once: the client has not read what was sent before.
 * While the connection holds bytes for it, the client must take some within `ms`, again and again,
 * or the connection is closed and what it held is freed (nginx's `send_timeout`). A client that
 * reads costs nothing here; one that stops reading is cut off within twice `ms`.
 */
export const watchSending = (socket: Socket, ms: number): void => {
  if (watched.has(socket)) return;
  watched.add(socket);
  let takenBefore = taken(socket);
  const check = () => {
    if (socket.destroyed || socket.writableLength === 0) {
      watched.delete(socket);
      return;
    }
    const takenNow = taken(socket);
    if (takenNow === takenBefore) {
      socket.destroy();
      return;
    }
    takenBefore = takenNow;
    setTimeout(check, ms).unref();
  };
  setTimeout(check, ms).unref();
};
