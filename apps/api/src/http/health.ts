import type { Database } from '@petstore/core';
import express, { type Router } from 'express';
import type { Logger } from 'pino';
import { methodNotAllowed } from './fallbacks.js';
import { sendError } from './send-error.js';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers too). */
export const healthRoutes = (db: Database, logger: Logger): Router => {
  const routes = express.Router();
  routes
    .route('/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET']));
  routes
    .route('/readyz')
    .get(async (_req, res) => {
      try {
        await db.ping();
        res.json({ status: 'ok' });
      } catch (error) {
        logger.warn({ err: error }, 'readiness check failed');
        sendError(res, 'SERVICE_UNAVAILABLE', 'The database is not answering.');
      }
    })
    .all(methodNotAllowed(['GET']));
  return routes;
};
