import type { Database } from '@petstore/core';
import express, { type Router } from 'express';
import { methodNotAllowed } from './fallbacks.js';
import { sendError } from './send-error.js';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers too). */
export const healthRoutes = (db: Database): Router => {
  const routes = express.Router();
  routes
    .route('/healthz')
    .get((_req, res) => {
      res.json({ status: 'ok' });
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  routes
    .route('/readyz')
    .get(async (req, res) => {
      try {
        await db.ping();
        res.json({ status: 'ok' });
      } catch (error) {
        req.log.warn({ err: error }, 'readiness check failed');
        sendError(res, 'SERVICE_UNAVAILABLE', 'The database is not answering.');
      }
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return routes;
};
