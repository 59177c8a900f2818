import express, { type Router } from 'express';
import { methodNotAllowed } from './fallbacks.js';
import { sendError } from './send-error.js';

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: its stores answer too). */
export const healthRoutes = (ready: () => Promise<void>): Router => {
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
        await ready();
        res.json({ status: 'ok' });
      } catch (error) {
        req.log.warn({ err: error }, 'readiness check failed');
        sendError(res, 'SERVICE_UNAVAILABLE', 'A store the service depends on is not answering.');
      }
    })
    .all(methodNotAllowed(['GET', 'HEAD']));
  return routes;
};
