import { type Database, isReplayed } from '@petstore/core';
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import type { RequestContext } from '../http/request-context.js';
import { type RequestObserver, UNMATCHED_ROUTE, listenForFinish } from './request-observer.js';
import { createRequestDurations } from './request-durations.js';
import { logLinesDropped } from '../settings/logger.js';

/** Seconds; from a cached get-by-id (well under a millisecond) to a request stuck behind the pool. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const TOO_MANY_REQUESTS = 429;

export interface Metrics {
  registry: Registry;
  observer: RequestObserver;
}

/**
 * The service's Prometheus metrics, in a registry of its own (several servers in one process,
 * as in tests, do not share counts). The label values are bounded: methods Node's parser accepts,
 * route templates (never raw URLs), statuses. The duration histogram is counted in the process
 * (request-durations.ts); the rest are prom-client's own.
 */
export const createMetrics = ({ db }: { db?: Database } = {}): Metrics => {
  // Required here, not imported above: a service with metrics off never loads prom-client.
  const { Counter, Gauge, Registry, collectDefaultMetrics } = createRequire(import.meta.url)('prom-client') as typeof PromClient;
  const registry = new Registry();
  // The event-loop lag is a distribution over the scrape interval whatever the sampling rate, and
  // sampling it often is paid by every request (docs/decisions/2026-11-23-metrics-cost-over-budget.md).
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 200 });
  const registers = [registry];

  const durations = createRequestDurations({
    name: 'http_server_request_duration_seconds',
    help: 'Time from a /v1 or /trpc request arriving to its response being written, by method, route template and status.',
    buckets: DURATION_BUCKETS,
    registers,
  });
  // Counted here and read on scrape: prom-client's own inc() and dec() hash their labels each time.
  let inFlight = 0;
  new Gauge({
    name: 'http_server_requests_in_flight',
    help: 'Requests to /v1 and /trpc that have arrived and not yet been answered.',
    registers,
    collect() {
      this.set(inFlight);
    },
  });
  const refusals = new Counter({
    name: 'petstore_rate_limit_refusals_total',
    help: 'Requests refused with 429: an API key over its quota, or an address over its failed-authentication throttle.',
    registers,
  });
  const replays = new Counter({
    name: 'petstore_idempotent_replays_total',
    help: 'Creates answered with the animal an earlier request with the same Idempotency-Key created.',
    registers,
  });
  new Counter({
    name: 'petstore_log_lines_dropped_total',
    help: 'Log lines dropped because stdout did not take them as fast as they came and the backlog reached LOG_BACKLOG_BYTES.',
    registers,
    collect() {
      this.reset();
      this.inc(logLinesDropped());
    },
  });
  if (db?.poolUse) {
    new Gauge({
      name: 'petstore_db_pool_connections',
      help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one.',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const use = db.poolUse?.();
        if (!use) return;
        this.set({ state: 'total' }, use.total);
        this.set({ state: 'idle' }, use.idle);
        this.set({ state: 'waiting' }, use.waiting);
      },
    });
  }

  const finished = (context: RequestContext, status: number, elapsedMs: number) => {
    inFlight -= 1;
    durations.observe(context.req.method ?? 'GET', context.route ?? UNMATCHED_ROUTE, status, elapsedMs / 1000);
    if (status === TOO_MANY_REQUESTS) refusals.inc();
  };

  const count = (context: RequestContext) => {
    inFlight += 1;
    listenForFinish(context, finished);
  };

  return {
    registry,
    observer: {
      serve: (serve) => (context) => {
        count(context);
        return serve(context);
      },
      // A refusal the front door gives before any transport serves; one of a request already
      // served (its promise failed, its answer too large to hold) was counted by `serve`, which
      // set its finish listener.
      refuse: (refuse) => (context, error, headers) => {
        if (context.onFinish === undefined) count(context);
        return refuse(context, error, headers);
      },
      call: (call) => async (operation, ctx, input) => {
        const result = await call(operation, ctx, input);
        if (operation.type === 'mutation' && isReplayed(result)) replays.inc();
        return result;
      },
    },
  };
};
