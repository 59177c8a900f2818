import { type Database, callOperation } from '@petstore/core';
import type { Config } from '../settings/config.js';
import type { Handler } from '../http/reply.js';
import { type CallOperation, type RequestObserver, composeObservers } from './request-observer.js';
import { type Metrics, createMetrics } from './metrics.js';

export interface Observability {
  /** Present when `config.metricsPort` is set. */
  metrics: Metrics | undefined;
  /** Every operation call goes through this: `callOperation` itself when nothing observes. */
  call: CallOperation;
  /** Wraps a transport; the transport itself when nothing observes. */
  transport(transport: Handler): Handler;
}

/**
 * Decided once, at start-up, from the settings: with metrics and tracing off the transports and
 * `callOperation` are used as they are, and a request meets no observer at all.
 */
export const observabilityFor = (config: Config, db: Database, tracing?: RequestObserver): Observability => {
  const metrics = config.metricsPort === undefined ? undefined : createMetrics({ db });
  const observers = [metrics?.observer, tracing].filter((observer) => observer !== undefined);
  if (observers.length === 0) return { metrics, call: callOperation, transport: (transport) => transport };
  const observer = composeObservers(observers);
  return {
    metrics,
    call: observer.call(callOperation),
    transport: (transport) => ({ serve: observer.serve(transport.serve), refuse: observer.refuse?.(transport.refuse) ?? transport.refuse }),
  };
};
