import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiKeyError, type ApiKeys, type Database } from '@petstore/core';
import type { Logger } from 'pino';
import express from 'express';
import { createApp } from './express-app.js';
import { OverloadedError } from '../front-door/overload.js';
import { answerMalformedRequest } from './malformed-request.js';
import { startMetricsServer } from '../observability/metrics-server.js';
import { startTracing } from '../observability/tracing.js';
import type { Config } from '../config.js';
import { type Petstore, openPetstore } from '../petstore.js';

export interface RunningServer {
  /** Base address, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  /** `GET /metrics` on the second listener, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  db: Database;
  /** Set when the database had no key at all and the server just created one. */
  firstApiKey: string | undefined;
  /** Stops accepting connections, lets requests in flight finish, then closes the stores. */
  close(): Promise<void>;
}

/** How long requests in flight may take to finish once shutdown begins. */
const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Only a database that never had a key gets one: revoking every key must not be undone here. Of
 * instances starting together on an empty database, one creates it and the others see the name taken.
 */
const createFirstKey = async (apiKeys: ApiKeys): Promise<string | undefined> => {
  if (await apiKeys.anyExist()) return undefined;
  try {
    return (await apiKeys.create('default')).token;
  } catch (error) {
    if (error instanceof ApiKeyError) return undefined;
    throw error;
  }
};

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

const stop = (server: Server) =>
  new Promise<void>((resolve, reject) => {
    const force = setTimeout(() => {
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS).unref();
    server.close((error) => {
      clearTimeout(force);
      if (error) reject(error);
      else resolve();
    });
    server.closeIdleConnections();
  });

export interface ServerOptions {
  /**
   * `express`: serve the API as middleware in a bare Express 5 app, as a host application would
   * mount it (the tests run the contract through both).
   */
  mount?: 'front-door' | 'express';
}

/**
 * `/v1` and `/trpc` go straight to the front door on node's own request and response; Express
 * builds its request and response objects and runs its router only for the other paths.
 */
const listenerFor = (petstore: Petstore, logger: Logger, { mount = 'front-door' }: ServerOptions) => {
  if (mount === 'express') return express().use(petstore.middleware);
  // Not ready while overloaded either: the load balancer then sends work to another instance.
  const ready = () =>
    petstore.overload?.overloaded() ? Promise.reject(new OverloadedError()) : petstore.stores.ready();
  const app = createApp({ ready, logger });
  const { frontDoor } = petstore;
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!frontDoor(req, res)) app(req, res);
  };
};

export const startServer = async (config: Config, logger: Logger, options: ServerOptions = {}): Promise<RunningServer> => {
  // Before the database opens: its statements are traced from the first request on.
  const tracing = config.tracing ? await startTracing() : undefined;
  const petstore = await openPetstore(config, logger, tracing);
  const { stores } = petstore;
  const firstApiKey = await createFirstKey(stores.apiKeys);

  const server = createServer(listenerFor(petstore, logger, options));
  server.on('clientError', answerMalformedRequest);
  // A client gets 10 s to send its headers and 30 s for the whole request: a slow sender cannot
  // hold a connection (and its memory) for the five minutes Node allows by default.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  try {
    await listen(server, config.port, config.host);
  } catch (error) {
    await stores.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  if (petstore.metrics && config.metricsPort !== undefined) {
    try {
      metricsServer = await startMetricsServer(petstore.metrics.registry, config.metricsPort, config.host);
    } catch (error) {
      await stop(server);
      await petstore.close();
      throw error;
    }
  }
  return {
    url: `http://${host}:${port}`,
    port,
    metricsUrl: metricsServer && `http://${host}:${metricsServer.port}/metrics`,
    db: stores.db,
    firstApiKey,
    close: async () => {
      await metricsServer?.close();
      await stop(server);
      await tracing?.shutdown();
      await stores.close();
    },
  };
};
