import { readFileSync, writeFileSync } from 'node:fs';
import { type Socket, connect } from 'node:net';

/** What came back on a connection, and when the service closed it. */
export interface Closed {
  /** Everything the service sent, as text. */
  answer: string;
  /** Bytes the service sent. */
  bytes: number;
  /** Seconds from the connection's start to its close by the service; undefined when the test gave up first. */
  closedAfterS: number | undefined;
  /** Seconds from the connection's start to the service's first byte; undefined when it sent none. */
  answeredAfterS: number | undefined;
}

/** The status of the first answer on a connection. */
export const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);

/** The first answer's body: what follows its headers. */
export const bodyOf = (answer: string) => answer.slice(answer.indexOf('\r\n\r\n') + 4);

/** Linux's name for an open connection's state, in /proc/net/tcp: the service still holds it. */
const HELD_STATES = new Set(['01', '08']); // ESTABLISHED, CLOSE_WAIT

/**
 * Whether the service (listening on `serverPort`) still holds its end of the connection from
 * `clientPort`, as the system's socket table says: a client that does not read cannot tell from
 * its own end, and reading or writing would change what is measured.
 */
const serviceHolds = (serverPort: number, clientPort: number) => {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .some((line) => {
      const [, local, remote, state] = line.trim().split(/\s+/);
      return local?.endsWith(`:${hex(serverPort)}`) === true && remote?.endsWith(`:${hex(clientPort)}`) === true && HELD_STATES.has(state ?? '');
    });
};

/** Connections the service on `serverPort` holds open from `address` (an IPv4 address), as the system's socket table says. */
export const connectionsHeldFrom = (serverPort: number, address: string) => {
  const hexAddress = address.split('.').map((part) => Number(part).toString(16).toUpperCase().padStart(2, '0')).reverse().join('');
  const port = serverPort.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .filter((line) => {
      const [, local, remote, state] = line.trim().split(/\s+/);
      return local?.endsWith(`:${port}`) === true && remote?.startsWith(`${hexAddress}:`) === true && HELD_STATES.has(state ?? '');
    }).length;
};

/**
 * A connection of the test's own, to send exactly the bytes a hostile client would, when it
 * would, and see when the service gives up on it. `read: false` leaves what the service sends
 * unread, as a client that never reads does; whether the service has let go of it is then read
 * from the system's socket table.
 */
export const openConnection = (url: string, { read = true, from }: { read?: boolean; from?: string } = {}) => {
  const serverPort = Number(new URL(url).port);
  // `from`: another loopback address (127.0.0.2…), a client the service tells apart from 127.0.0.1.
  const socket: Socket = connect({ port: serverPort, host: '127.0.0.1', localAddress: from });
  const started = performance.now();
  let answer = '';
  let bytes = 0;
  let answeredAfterS: number | undefined;
  if (read) {
    socket.on('data', (chunk: Buffer) => {
      answeredAfterS ??= since();
      bytes += chunk.length;
      answer += chunk.toString('latin1');
    });
  } else {
    socket.pause();
  }
  socket.on('error', () => undefined);
  const since = () => (performance.now() - started) / 1000;
  const closed = read
    ? new Promise<number>((resolve) => socket.once('close', () => { resolve(since()); }))
    : new Promise<number>((resolve) => {
        const look = setInterval(() => {
          if (socket.localPort === undefined || serviceHolds(serverPort, socket.localPort)) return;
          clearInterval(look);
          resolve(since());
        }, 100);
        socket.once('close', () => { clearInterval(look); });
      });
  return {
    socket,
    /** Writes `bytes` unless the service has closed the connection. */
    send: (data: string | Buffer) => {
      if (!socket.destroyed) socket.write(data);
    },
    /** Waits until the service closes the connection, or `giveUpS` has passed (then closes it). */
    closed: async (giveUpS: number): Promise<Closed> => {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<undefined>((resolve) => (timer = setTimeout(() => { resolve(undefined); }, giveUpS * 1000)));
      const closedAfterS = await Promise.race([closed, gaveUp]);
      clearTimeout(timer);
      socket.destroy();
      return { answer, bytes, closedAfterS, answeredAfterS };
    },
  };
};

/** One request on a connection of its own, answered and closed: what came back. */
export const exchangeOnce = async (url: string, request: string | Buffer, giveUpS = 10, from?: string): Promise<Closed> => {
  const connection = openConnection(url, { from });
  connection.send(request);
  return connection.closed(giveUpS);
};

/** A request as it goes on the wire, with `Connection: close`. */
export const requestText = (method: string, path: string, headers: Record<string, string> = {}, body = '') =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;

/** Seconds of CPU the process has used, user and system together (Linux's /proc). */
export const cpuSecondsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime, in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const statusMiB = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** The process's resident memory, in MiB. */
export const rssMiBOf = (pid: number) => statusMiB(pid, 'VmRSS');

/** The most resident memory the process has held since it started, in MiB. */
export const peakRssMiBOf = (pid: number) => statusMiB(pid, 'VmHWM');

/** Starts the process's peak memory afresh from what it holds now (Linux's clear_refs), so a peak read later is the attack's. */
export const resetPeakRss = (pid: number) => {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
};
