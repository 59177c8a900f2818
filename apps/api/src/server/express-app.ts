import express, { type Express } from 'express';
import type { Logger } from 'pino';
import { docsPage } from '../docs/docs-page.js';
import { errorHandler, notFound } from './fallbacks.js';
import { healthRoutes } from '../health/health-routes.js';
import { requestLog } from './request-log.js';
import { securityHeaders } from './security-headers.js';
import type { Readiness } from '../stores/open-stores.js';

/**
 * The Express app around the API's front door: the docs page, health and readiness, and the Error
 * body for every path that is nobody's. `/v1` and `/trpc` never reach it (see server.ts).
 */
export const createApp = ({ ready, logger }: { ready: () => Promise<Readiness>; logger: Logger }): Express => {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(requestLog(logger));
  app.use(securityHeaders);
  app.use('/docs', docsPage());
  app.use(healthRoutes(ready));
  app.use(notFound);
  app.use(errorHandler);
  return app;
};
