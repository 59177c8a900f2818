import { IncomingMessage, type Server, ServerResponse, createServer } from 'node:http';
import { type AddressInfo, Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiKeyError, type ApiKeys, type Database } from '@petstore/core';
import { TRPCError } from '@trpc/server';
import type { Logger } from 'pino';
import { KEYS_COMMAND } from './cli/keys-command.js';
import type { Config } from './settings/config.js';
import type { ServerContext } from './http/request-context.js';
import { trustedProxyTest } from './admission/client-address.js';
import { REQUEST_TIMEOUT, bodyUnparseable, expectContinue } from './http/read-body.js';
import { STOPPED_PARSING, countConnections, oneAtATime } from './front-door/connections.js';
import { createListenerHandler, openRequestContext } from './front-door/front-door.js';

import { writeReply } from './front-door/write-reply.js';
import { createMetricsPage } from './observability/metrics-server.js';
import { type Petstore, openPetstore } from './petstore.js';

export interface RunningServer {
  /** Base address, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** `GET /metrics` on the second listener, when `config.metricsPort` is set. */
  metricsUrl: string | undefined;
  db: Database;
  /** Set when the database had no key at all and the server just created one. */
  firstApiKey: string | undefined;
  /**
   * Stops as a rolling deploy needs: `/readyz` fails at once and every answer from then on closes
   * its connection; after `config.shutdownDelayMs` no new connection is taken and idle ones close;
   * every request already taken is answered (those still running after `config.shutdownGraceMs`
   * are cut); then the stores close.
   */
  close(): Promise<void>;
}

/** How to make a key where the first start made none: from a checkout, and in the image. */
const MAKE_A_KEY = `${KEYS_COMMAND} create <name> (in the image: node dist/cli/keys.js create <name>)`;

/**
 * Only a database that never had a key gets one: revoking every key must not be undone here. Of
 * instances starting together on an empty database, one creates it and the others see the name
 * taken. With `FIRST_API_KEY=hint` none is made: the log says how to make one.
 */
const createFirstKey = async (apiKeys: ApiKeys, mode: Config['firstApiKey'], logger: Logger): Promise<string | undefined> => {
  if (await apiKeys.anyExist()) return undefined;
  if (mode === 'hint') {
    logger.warn({ firstApiKey: mode }, `No API key exists yet: make one with ${MAKE_A_KEY}`);
    return undefined;
  }
  try {
    return (await apiKeys.create('default')).token;
  } catch (error) {
    if (error instanceof ApiKeyError) return undefined;
    throw error;
  }
};

const listen = (server: Server, port: number, host: string, backlog?: number) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, backlog, () => {
      server.off('error', reject);
      resolve();
    });
  });

/** Stops a server that has no requests worth finishing (the metrics listener): its connections are cut. */
const closeAtOnce = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
    server.closeAllConnections();
  });

/**
 * Takes no new connection and settles once every connection is done. Node's own `server.close()`
 * would close idle keep-alive connections at once, and closing one before its client's own idle
 * timeout races a request the client may be writing on it: the client, or a proxy such as nginx
 * (which never sends a create it has written to another instance), sees a reset it cannot tell
 * from a lost request. So an idle connection is left `idleMs` for its client to close (nginx's
 * upstream `keepalive_timeout` is set below it), while a client still sending gets its next answer
 * with `Connection: close` (front-door/write-reply.ts). Requests still running after `graceMs` are cut.
 */
const drain = (server: Server, { graceMs, idleMs }: { graceMs: number; idleMs: number }, logger: Logger) =>
  new Promise<void>((resolve, reject) => {
    const idle = setTimeout(() => { server.closeIdleConnections(); }, idleMs).unref();
    const force = setTimeout(() => {
      logger.warn({ graceMs }, 'stopping: the grace ran out, cutting the requests still running');
      server.closeAllConnections();
    }, graceMs).unref();
    NetServer.prototype.close.call(server, (error) => {
      clearTimeout(idle);
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
  });

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How often Node looks for requests past `headersTimeout` and `requestTimeout`. */
const CONNECTIONS_CHECKED_EVERY_MS = 1_000;

/**
 * An idle keep-alive connection is closed this long after its last answer, which says so
 * (`Keep-Alive: timeout=5`), and Node waits KEEP_ALIVE_TIMEOUT_BUFFER_MS more before it closes
 * it, so a client that sends just as its own timeout ends is not cut: 6 s in all. Node's own
 * defaults, stated here because docs/operating.md quotes them.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const KEEP_ALIVE_TIMEOUT_BUFFER_MS = 1_000;

export interface ServerOptions {
  /**
   * `express`: serve the API as middleware in a bare Express 5 app, as a host application would
   * mount it (the tests run the contract through both). Express is the host's, a dev dependency here.
   */
  mount?: 'front-door' | 'express';
}

/** Every request goes to the front door; mounted in Express, only the API's paths do. One request at a time per connection either way. */
const listenerFor = async (petstore: Petstore, { mount = 'front-door' }: ServerOptions) =>
  oneAtATime(mount === 'express' ? (await import('express')).default().use(petstore.middleware) : petstore.frontDoor);

/**
 * Node answers a request it cannot parse (bad header characters, headers over 16 KiB, a broken
 * request line) or that arrives too slowly with a bare status line before any handler runs. This
 * gives those answers the Error body every other error has, through the same writer, on a response
 * bound to the connection. Bytes that follow a request (an unframed body) are not a request the
 * client waits an answer for: a connection that already answered closes, one still answering
 * closes once it has.
 */
const answerMalformedRequest = (serverContext: ServerContext, refuse: Petstore['refuseMalformed']) => {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    // Closed mid-read (front-door/connections.ts): there is no one left to answer.
    if (error.code === STOPPED_PARSING) return;
    // An earlier request on this connection is still being answered: that answer comes first, and
    // the connection closes after it, leaving the bytes that followed it unanswered.
    const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (answering) {
      if (error.code !== REQUEST_TIMEOUT) {
        answering.shouldKeepAlive = false;
        // Its own body could not be parsed (a chunk framed with bare line feeds): nothing more of
        // it will come, and its reader answers 400 at once (http/read-body.ts).
        if (!answering.req.complete) bodyUnparseable(answering.req, error);
      }
      // A request past its time whose body is being read or drained: its reader answers 408
      // (http/read-body.ts) or ends the drain (front-door/lingering-close.ts). Nothing else
      // listens, and nothing the request could still send is worth the connection.
      else if (answering.req.listenerCount('error') > 0) answering.req.emit('error', error);
      else socket.destroy();
      return;
    }
    // A connection that never sent a byte asked nothing: it is closed without an answer, as nginx
    // closes one past `client_header_timeout`.
    const silent = (socket as Socket).bytesRead === 0;
    if (silent || !socket.writable || error.code === 'ECONNRESET' || (socket as Socket).bytesWritten > 0) {
      socket.destroy();
      return;
    }
    const req = new IncomingMessage(socket as Socket);
    Object.assign(req, { method: 'GET', url: '', httpVersionMajor: 1, httpVersionMinor: 1, complete: false });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.once('finish', () => {
      res.detachSocket(socket as Socket);
      (socket as Socket).destroySoon();
    });
    const refusal =
      error.code === REQUEST_TIMEOUT
        ? new TRPCError({ code: 'TIMEOUT', message: 'The request took too long to arrive.' })
        : new TRPCError({ code: 'BAD_REQUEST', message: error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large.' : 'The request is not valid HTTP.' });
    const context = openRequestContext(req, res, serverContext);
    writeReply(context, refuse(context, refusal));
  };
};

export const startServer = async (config: Config, logger: Logger, options: ServerOptions = {}): Promise<RunningServer> => {
  // Before the database opens: its statements are traced from the first request on.
  // Loaded only when on: OpenTelemetry's modules stay out of a process that does not trace.
  const tracing = config.tracing ? await (await import('./observability/tracing.js')).startTracing() : undefined;
  const petstore = await openPetstore(config, logger, tracing);
  const { stores } = petstore;

  const listener = await listenerFor(petstore, options);
  // Every listener passes the same bounds: its time to send headers and body, keep-alive, one
  // request at a time, the unsent-bytes budget (the one writer), and the connections it may hold,
  // counted together with the other listener's.
  const connections = countConnections({
    ...config,
    isTrustedProxy: trustedProxyTest(config.trustProxy),
    refusedConnections: petstore.server.refusedConnections,
  });
  const bounded = (serve: (req: IncomingMessage, res: ServerResponse) => void, refuseMalformed: Petstore['refuseMalformed']) => {
    const bound = createServer(
      {
        // Node looks for requests past their bounds this often; its default, 30 s, would let one
        // outlive its bound by as much.
        connectionsCheckingInterval: CONNECTIONS_CHECKED_EVERY_MS,
        headersTimeout: config.headersTimeoutMs,
        // The whole request, headers and body, from its first byte: Node's parser keeps the time of
        // every request at no cost to one that arrives in time, and says so to answerMalformedRequest.
        requestTimeout: config.headersTimeoutMs + config.bodyTimeoutMs,
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        keepAliveTimeoutBuffer: KEEP_ALIVE_TIMEOUT_BUFFER_MS,
        // The front door refuses a request without Host with the Error body; Node's own check answers a bare 400.
        requireHostHeader: false,
      },
      serve,
    );
    bound.on('clientError', answerMalformedRequest(petstore.server, refuseMalformed));
    connections.track(bound);
    return bound;
  };
  const server = bounded(listener, petstore.refuseMalformed);
  // `Expect: 100-continue`: Node would invite the body at once; it is invited only once the request
  // is admitted and its body about to be read (http/read-body.ts).
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    expectContinue(req, res);
    listener(req, res);
  });
  // Any other expectation is ignored, as nginx does (RFC 9110 §10.1.1 lets a server answer 417, or
  // not): the request is served as it would be without it, where Node would answer a bare 417.
  server.on('checkExpectation', listener);
  try {
    await listen(server, config.port, config.host, config.listenBacklog);
  } catch (error) {
    await stores.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let metricsServer: Server | undefined;
  if (petstore.metrics && config.metricsPort !== undefined) {
    try {
      const metricsPage = createMetricsPage(petstore.metrics.registry);
      metricsServer = bounded(oneAtATime(createListenerHandler(petstore.server, metricsPage)), metricsPage.refuse);
      await listen(metricsServer, config.metricsPort, config.host);
    } catch (error) {
      await drain(server, { graceMs: config.shutdownGraceMs, idleMs: config.shutdownIdleMs }, logger);
      await petstore.close();
      throw error;
    }
  }
  // Once listening: a start that fails on a taken port makes no key that nobody is shown.
  let firstApiKey: string | undefined;
  try {
    firstApiKey = await createFirstKey(stores.apiKeys, config.firstApiKey, logger);
  } catch (error) {
    await drain(server, { graceMs: config.shutdownGraceMs, idleMs: config.shutdownIdleMs }, logger);
    if (metricsServer) await closeAtOnce(metricsServer);
    await petstore.close();
    throw error;
  }
  return {
    url: `http://${host}:${port}`,
    port,
    metricsUrl: metricsServer && `http://${host}:${(metricsServer.address() as AddressInfo).port}/metrics`,
    db: stores.db,
    firstApiKey,
    close: async () => {
      // From here on `/readyz` fails and every answer closes its connection (front-door/write-reply.ts).
      petstore.server.stopping = true;
      if (config.shutdownDelayMs > 0) await pause(config.shutdownDelayMs);
      await drain(server, { graceMs: config.shutdownGraceMs, idleMs: config.shutdownIdleMs }, logger);
      if (metricsServer) await closeAtOnce(metricsServer);
      await tracing?.shutdown();
      await stores.close();
    },
  };
};
