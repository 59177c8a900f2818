import type { ApiKeys, Database } from '@petstore/core';
import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { docsPage } from './docs/docs-page.js';
import { errorHandler, notFound } from './http/fallbacks.js';
import { healthRoutes } from './http/health.js';
import type { Quota } from './http/rate-limit.js';
import { requestLog } from './http/request-log.js';
import { securityHeaders } from './http/security-headers.js';
import { type DocumentServers, createOpenApiDocument } from './openapi/document.js';
import { serializeDocument } from './openapi/serialize.js';
import { createRestApi } from './rest/rest-api.js';
import { createTrpcEndpoint } from './trpc/trpc-endpoint.js';

export interface AppDependencies {
  db: Database;
  apiKeys: ApiKeys;
  logger: Logger;
  servers: DocumentServers;
  /** Requests per API key; undefined when rate limiting is off. */
  quota: Quota | undefined;
}

/** Wires the transports around the core procedures; no domain rule lives here. */
export const createApp = ({ db, apiKeys, logger, servers, quota }: AppDependencies): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const openApiJson = serializeDocument(createOpenApiDocument(servers));
  app.use(requestLog(logger));
  app.use(securityHeaders);
  // At the root, not mounted on /v1: Express then spends no path matching on the busiest requests.
  app.use(createRestApi({ db, apiKeys, quota, openApiJson }));
  app.use('/trpc', ...createTrpcEndpoint({ db, apiKeys, quota }));
  app.use('/docs', docsPage());
  app.use(healthRoutes(db));
  app.use(notFound);
  app.use(errorHandler);
  return app;
};
