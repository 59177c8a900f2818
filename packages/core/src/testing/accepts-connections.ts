import { connect } from 'node:net';

/** Whether something accepts a TCP connection on 127.0.0.1:`port` now: how a test knows a server it started is up. */
export const acceptsConnections = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
