import { type Socket, connect, createServer } from 'node:net';
import { once } from 'node:events';
import { TRPC_ERROR_CODES_BY_KEY } from '@trpc/server/rpc';

/** What the proxy does to the next request that arrives; then it passes everything through again. */
type Mishap =
  /** Forwards the request, lets the service answer, and cuts the connection before the answer gets through. */
  | { kind: 'cut-after-answer' }
  /** Holds the request: neither forwards it nor answers. */
  | { kind: 'stall' }
  /**
   * Answers in the service's stead, as the service answers "later" on that path and link: e.g. 429
   * with `Retry-After`; a streamed batch gets 200 with the refusal inside, as the service sends it.
   */
  | { kind: 'answer'; status: number; headers: Record<string, string> }
  /** Answers as a proxy in front of the service would with its own error page: HTML, not the service's JSON. */
  | { kind: 'page'; status: number; headers: Record<string, string> };

/** A request as it reached the proxy. */
interface Arrival {
  method: string;
  idempotencyKey: string | null;
}

export interface FlakyProxy {
  /** The address to give a client instead of the service's. */
  url: string;
  /** Every request that reached the proxy, mishaps included, oldest first. */
  arrivals: Arrival[];
  /** Arms a mishap for the next request, or for the next `times` requests. */
  next(mishap: Mishap, times?: number): void;
  /** Disarms what is left of the last mishap armed. */
  clear(): void;
  close(): Promise<void>;
}

const REQUEST_LINE = /^([A-Z]+) (\S+) HTTP\/1\.1\r\n/;
const IDEMPOTENCY_KEY = /\r\nidempotency-key: *([^\r]*)\r\n/i;
const STREAM_ACCEPTED = /\r\ntrpc-accept: *application\/jsonl\r\n/i;

const response = (status: number, reason: string, headers: Record<string, string>, contentType: string, body: string) => {
  const lines = Object.entries({ ...headers, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)), Connection: 'close' });
  return `HTTP/1.1 ${String(status)} ${reason}\r\n${lines.map(([name, value]) => `${name}: ${value}`).join('\r\n')}\r\n\r\n${body}`;
};

/**
 * The service's "later", as it sends it (see its answers with `curl -i`): the Error body on `/v1`;
 * on `/trpc` tRPC's envelope with that code in `data`, alone for httpLink, one per call in an array
 * for httpBatchLink, and for httpBatchStreamLink a stream answered 200, one per call in its head.
 */
const serviceAnswer = (path: string, head: string, status: number, headers: Record<string, string>) => {
  const code = status === 429 ? 'TOO_MANY_REQUESTS' : 'SERVICE_UNAVAILABLE';
  const message = 'Try again later.';
  if (!path.startsWith('/trpc')) return response(status, 'Later', headers, 'application/json', JSON.stringify({ code, message, status }));
  const envelope = { error: { message, code: TRPC_ERROR_CODES_BY_KEY[code], data: { code, httpStatus: status } } };
  const url = new URL(path, 'http://proxy');
  if (url.searchParams.get('batch') !== '1') return response(status, 'Later', headers, 'application/json', JSON.stringify(envelope));
  const calls = url.pathname.slice('/trpc/'.length).split(',');
  if (!STREAM_ACCEPTED.test(head)) return response(status, 'Later', headers, 'application/json', JSON.stringify(calls.map(() => envelope)));
  const streamHead = Object.fromEntries(calls.map((_, index) => [String(index), [[envelope]]]));
  return response(200, 'OK', headers, 'application/json', `${JSON.stringify(streamHead)}\n`);
};

/** A proxy's own error page. */
const proxyPage = (status: number, headers: Record<string, string>) =>
  response(status, 'Proxy', headers, 'text/html', `<html><body><h1>${String(status)}</h1><p>The proxy's own page.</p></body></html>`);

/**
 * A TCP proxy on 127.0.0.1 in front of a real service, for what a network does to a client: a
 * connection lost after the service acted, a request that never comes back, an answer of "later".
 */
export const startFlakyProxy = async (target: string): Promise<FlakyProxy> => {
  const { hostname, port } = new URL(target);
  let armed: Mishap | undefined;
  let left = 0;
  const arrivals: Arrival[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    let cutting = false;
    client.on('data', (chunk: Buffer) => {
      const head = chunk.toString('latin1');
      const [, method, path] = REQUEST_LINE.exec(head) ?? [];
      if (method !== undefined) arrivals.push({ method, idempotencyKey: IDEMPOTENCY_KEY.exec(head)?.[1] ?? null });
      const mishap = path === undefined ? undefined : armed;
      if (mishap && --left === 0) armed = undefined;
      if (mishap?.kind === 'stall') {
        // Held for as long as the client waits: the service's own idle timeout, closing the
        // connection upstream, would otherwise end the stall for it.
        upstream.removeListener('close', closeBoth).removeListener('error', closeBoth).destroy();
        return;
      }
      if (mishap?.kind === 'answer' || mishap?.kind === 'page') {
        client.end(mishap.kind === 'page' ? proxyPage(mishap.status, mishap.headers) : serviceAnswer(path ?? '', head, mishap.status, mishap.headers));
        upstream.destroy();
        return;
      }
      if (mishap?.kind === 'cut-after-answer') cutting = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (cutting) {
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth).on('error', closeBoth);
    upstream.on('close', closeBoth).on('error', closeBoth);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    url: `http://127.0.0.1:${String(address.port)}`,
    arrivals,
    next: (mishap, times = 1) => {
      armed = mishap;
      left = times;
    },
    clear: () => {
      armed = undefined;
      left = 0;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
};
