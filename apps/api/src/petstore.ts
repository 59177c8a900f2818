import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from './http/request-context.js';
import type { Handler } from './http/reply.js';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createAdmission } from './admission/admit.js';
import { createAuthentication } from './admission/authenticate.js';
import { clientAddressResolver } from './admission/client-address.js';
import type { Config } from './settings/config.js';
import { createCors } from './front-door/cors.js';
import { createServerContext, createFrontDoor, throughAdmission } from './front-door/front-door.js';
import { type OverloadGuard, createOverloadGuard } from './front-door/overload.js';
import type { Metrics } from './observability/metrics.js';
import { observabilityFor } from './observability/observability.js';
import { StoppingError } from './pages/health.js';
import { createPages } from './pages/pages.js';
import type { Tracing } from './observability/tracing.js';
import { lazyDocument } from './openapi/lazy-document.js';
import { createRestTransport } from './rest/rest.js';
import { type Stores, openStores } from './stores/open-stores.js';
import { createTrpcTransport } from './trpc/trpc.js';

export interface Petstore {
  stores: Stores;
  /** What its requests share; `server.stopping` starts a stop (server.ts). */
  server: ServerContext;
  /** The Prometheus registry, when `config.metricsPort` is set; the server serves it on its own listener. */
  metrics: Metrics | undefined;
  /** Refuses requests that waited too long in an overloaded queue; undefined when off. */
  overload: OverloadGuard | undefined;
  /**
   * Refuses a request Node could not parse, or that took too long to arrive, as REST refuses (the
   * Error body), observed as the API's own refusals are: its path is not known.
   */
  refuseMalformed: Handler['refuse'];
  /** Serves every request: `/v1`, `/trpc`, the docs page, health, and the 404 for any other path. */
  frontDoor: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** `/v1` and `/trpc` as Express 5 middleware, for mounting in another app: `app.use(petstore.middleware)`. */
  middleware: RequestHandler;
  close(): Promise<void>;
}

/** Both transports over the same stores, behind one front door: one admission step, one writer. */
export const createPetstore = (stores: Stores, config: Config, logger: Logger, tracing?: Tracing): Petstore => {
  const clientAddress = clientAddressResolver(config.trustProxy);
  const admission = {
    authenticate: createAuthentication({ apiKeys: stores.apiKeys, failedAuthQuota: stores.failedAuthQuota, clientAddress }),
    admit: createAdmission({ db: stores.db, keyQuota: stores.keyQuota, failedAuthQuota: stores.failedAuthQuota, clientAddress }),
  };
  const observed = observabilityFor(config, stores.db, tracing?.observer);
  const { call } = observed;
  const serverContext = createServerContext({ logger, sendTimeoutMs: config.sendTimeoutMs, maxUnsentBytes: config.maxUnsentBytes, clientAddress });
  const overload = createOverloadGuard(config.overloadDelayMs, logger);
  const api = {
    server: serverContext,
    rest: observed.transport(throughAdmission(admission, createRestTransport({ openApiJson: lazyDocument(config), call }))),
    trpc: observed.transport(throughAdmission(admission, createTrpcTransport({ allowMethodOverride: config.trpcAllowMethodOverride, call }))),
    cors: createCors(config.corsOrigins),
    overload,
  };
  // Not ready while stopping: the load balancer then sends new work to another instance. Load is
  // not readiness: instances under the same pressure would leave the pool together.
  const ready = () => (serverContext.stopping ? Promise.reject(new StoppingError()) : stores.ready());
  const handleAll = createFrontDoor({ ...api, pages: createPages({ ready }) });
  const handleApi = createFrontDoor(api);
  return {
    stores,
    server: serverContext,
    metrics: observed.metrics,
    refuseMalformed: api.rest.refuse,
    frontDoor: handleAll,
    middleware: (req, res, next) => {
      // The host app's own headers (Express's X-Powered-By) say nothing the API wants said.
      res.removeHeader('X-Powered-By');
      if (!handleApi(req, res)) next();
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
