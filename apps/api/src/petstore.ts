import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createAdmission } from './admission/admit.js';
import { clientAddressResolver } from './admission/client-address.js';
import type { Config } from './config.js';
import { createCors } from './front-door/cors.js';
import { type FrontDoor, createFrontDoor } from './front-door/front-door.js';
import { type OverloadGuard, createOverloadGuard } from './front-door/overload.js';
import type { Metrics } from './observability/metrics.js';
import { observabilityFor } from './observability/observability.js';
import type { Tracing } from './observability/tracing.js';
import { lazyDocument } from './openapi/lazy-document.js';
import { procedureTable } from './procedures/procedure-table.js';
import { createRestHandler } from './rest/rest-handler.js';
import { type Stores, openStores } from './stores/open-stores.js';
import { createTrpcHandler } from './trpc/trpc-handler.js';

export interface Petstore {
  stores: Stores;
  /** The Prometheus registry, when METRICS_PORT is set; the server serves it on its own listener. */
  metrics: Metrics | undefined;
  /** Refuses new API requests while the event loop is overloaded; undefined when off. */
  overload: OverloadGuard | undefined;
  /** Serves `/v1` and `/trpc` on a node request; false for any other path. */
  frontDoor: FrontDoor;
  /** The same, as Express 5 middleware: `app.use(petstore.middleware)`. */
  middleware: RequestHandler;
  close(): Promise<void>;
}

/** Both transports over the same stores: one admission step, one procedure table. */
export const createPetstore = (stores: Stores, config: Config, logger: Logger, tracing?: Tracing): Petstore => {
  const table = procedureTable();
  const admit = createAdmission({
    db: stores.db,
    apiKeys: stores.apiKeys,
    keyQuota: stores.keyQuota,
    failedAuthQuota: stores.failedAuthQuota,
    clientAddress: clientAddressResolver(config.trustProxy),
  });
  const openApiJson = lazyDocument(config);
  const overload = createOverloadGuard(config.overloadDelayMs, logger);
  const observed = observabilityFor(config, stores.db, tracing?.observer);
  const { call } = observed;
  const frontDoor = createFrontDoor({
    rest: observed.handler(createRestHandler({ admit, table, openApiJson, call })),
    trpc: observed.handler(createTrpcHandler({ admit, table, call })),
    logger,
    cors: createCors(config.corsOrigins),
    overload,
  });
  return {
    stores,
    metrics: observed.metrics,
    frontDoor,
    middleware: (req, res, next) => {
      // The host app's own headers (Express's X-Powered-By) say nothing the API wants said.
      res.removeHeader('X-Powered-By');
      if (!frontDoor(req, res)) next();
    },
    overload,
    close: () => {
      overload?.stop();
      return stores.close();
    },
  };
};

/** Opens the stores the configuration names and serves them: for mounting in another Express app. */
export const openPetstore = async (config: Config, logger: Logger, tracing?: Tracing): Promise<Petstore> =>
  createPetstore(await openStores(config, logger, tracing?.onStatement), config, logger, tracing);
