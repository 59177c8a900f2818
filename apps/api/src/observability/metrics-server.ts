import type { Registry } from 'prom-client';
import { errorReply } from '../http/error-reply.js';
import { READ_METHODS, methodNotAllowed, nothingAt } from '../http/failure.js';
import type { Handler } from '../http/reply.js';

const METRICS_PATH = '/metrics';

/**
 * What the second listener serves, which server.ts opens on the service's host at
 * `config.metricsPort` and answers through the one writer as every other response:
 * `GET /metrics` in Prometheus's text format and nothing else. The public port never serves
 * metrics; this one is meant for the scraper's network.
 */
export const createMetricsPage = (registry: Registry): Handler => ({
  serve: (context) => {
    const { method, url } = context.req;
    if ((url ?? '/').split('?', 1)[0] !== METRICS_PATH) return Promise.resolve(errorReply(context, nothingAt(method, url)));
    if (method !== 'GET' && method !== 'HEAD') return Promise.resolve(errorReply(context, methodNotAllowed(method, url, READ_METHODS), ['Allow', READ_METHODS]));
    return registry.metrics().then((body) => ({ kind: 'body', status: 200, headers: [], body, type: registry.contentType }));
  },
  refuse: errorReply,
});
