import { type Server, type Socket, connect, createServer } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Drops every connection through it and refuses new ones, as a failed network would. */
  cut(): void;
  /**
   * Keeps every connection open but carries nothing more either way, as a network that stalls
   * without a reset would; new connections are taken and stall too.
   */
  stall(): void;
  /** Carries traffic again; connections that stalled are dropped, since bytes were lost on them. */
  restore(): void;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 to `target`, which the test can cut, stall and restore. */
export const startTcpProxy = async (target: { host: string; port: number }): Promise<TcpProxy> => {
  const open = new Set<Socket>();
  let state: 'open' | 'cut' | 'stalled' = 'open';
  const stalledOnes = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (state === 'cut') {
      client.destroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const forward = (from: Socket, to: Socket) => {
      from.on('data', (chunk: Buffer) => {
        if (state === 'stalled') stalledOnes.add(from);
        else to.write(chunk);
      });
    };
    forward(client, upstream);
    forward(upstream, client);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    cut: () => {
      state = 'cut';
      for (const socket of open) socket.destroy();
    },
    stall: () => {
      state = 'stalled';
    },
    restore: () => {
      state = 'open';
      for (const socket of stalledOnes) socket.destroy();
      stalledOnes.clear();
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
