import { type Server, createServer } from 'node:http';
import type { Registry } from 'prom-client';

export const METRICS_PATH = '/metrics';

/**
 * The second listener, which server.ts opens on the service's host at `config.metricsPort`:
 * `GET /metrics` in Prometheus's text format and nothing else. The public port never serves
 * metrics; this one is meant for the scraper's network.
 */
export const createMetricsServer = (registry: Registry): Server =>
  createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' }).end('Method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${String(error)}\n`);
      },
    );
  });
