import { type Server, type Socket, connect, createServer } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection through it and refuses new ones, as a failed network would. */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 to `target`, which the test can cut and restore. */
export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => {
      cut = true;
      for (const socket of open) socket.destroy();
    },
    restore: () => {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
};
