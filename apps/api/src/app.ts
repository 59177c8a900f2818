import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { docsPage } from './docs/docs-page.js';
import { errorHandler, notFound } from './http/fallbacks.js';
import { healthRoutes } from './http/health.js';
import { requestLog } from './http/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { type DocumentServers, createOpenApiDocument } from './openapi/document.js';
import { serializeDocument } from './openapi/serialize.js';
import { createRestApi } from './rest/rest-api.js';
import type { ServiceState } from './state.js';
import { createTrpcEndpoint } from './trpc/trpc-endpoint.js';

export interface AppDependencies {
  state: ServiceState;
  logger: Logger;
  servers: DocumentServers;
}

/** Wires the transports around the core procedures; no domain rule lives here. */
export const createApp = ({ state, logger, servers }: AppDependencies): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const openApiJson = serializeDocument(createOpenApiDocument(servers));
  app.use(requestLog(logger));
  app.use(securityHeaders);
  // At the root, not mounted on /v1: Express then spends no path matching on the busiest requests.
  app.use(createRestApi({ state, openApiJson }));
  app.use('/trpc', ...createTrpcEndpoint(state));
  app.use('/docs', docsPage());
  app.use(healthRoutes(() => state.ready()));
  app.use(notFound);
  app.use(errorHandler);
  return app;
};
