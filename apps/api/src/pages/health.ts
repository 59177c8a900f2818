import express, { type Router } from 'express';
import type { Readiness } from '../stores/open-stores.js';
import { OverloadedError } from '../front-door/overload.js';
import { methodNotAllowed } from '../server/fallbacks.js';
import { sendError } from '../server/send-error.js';

/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers too;
 * a store the service can run without, Redis, is named in `degraded` while it is away).
 */
export const healthRoutes = (ready: () => Promise<Readiness>): Router => {
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
        const { degraded } = await ready();
        res.json({ status: 'ok', degraded });
      } catch (error) {
        req.log.warn({ err: error }, 'readiness check failed');
        const message = error instanceof OverloadedError ? error.message : 'A store the service depends on is not answering.';
        sendError(res, 'SERVICE_UNAVAILABLE', message);
      }
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return routes;
};
