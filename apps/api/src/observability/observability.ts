import type { Database } from '@petstore/core';
import type { Config } from '../config.js';
import type { ApiHandler } from '../front-door/front-door.js';
import { callProcedure } from '../procedures/procedure-table.js';
import { type CallProcedure, type RequestObserver, composeObservers } from './exchange-observer.js';
import { type Metrics, createMetrics } from './metrics.js';

export interface Observability {
  /** Present when METRICS_PORT is set. */
  metrics: Metrics | undefined;
  /** Every procedure call goes through this: `callProcedure` itself when nothing observes. */
  call: CallProcedure;
  /** Wraps a transport's handler; the handler itself when nothing observes. */
  handler(handler: ApiHandler): ApiHandler;
}

/**
 * Decided once, at start-up, from the settings: with metrics and tracing off the handlers and
 * `callProcedure` are used as they are, and a request meets no observer at all.
 */
export const observabilityFor = (config: Config, db: Database, tracing?: RequestObserver): Observability => {
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({ db });
  const observers = [metrics?.observer, tracing].filter((observer) => observer !== undefined);
  if (observers.length === 0) return { metrics, call: callProcedure, handler: (handler) => handler };
  const observer = composeObservers(observers);
  return { metrics, call: observer.call(callProcedure), handler: (handler) => observer.handler(handler) };
};
