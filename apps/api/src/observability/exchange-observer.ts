import type { ApiHandler } from '../front-door/front-door.js';
import type { Exchange, FinishListener } from '../front-door/exchange.js';
import type { callProcedure } from '../procedures/procedure-table.js';

export type CallProcedure = typeof callProcedure;

/**
 * What metrics and tracing add to the request path when they are on: a wrapper around each
 * transport's handler (it sees the exchange start and sets `onFinish`) and one around every
 * procedure call. Both are applied once, at start-up; when neither is on, nothing is wrapped.
 */
export interface RequestObserver {
  handler(handler: ApiHandler): ApiHandler;
  call(call: CallProcedure): CallProcedure;
}

/** Adds a finish listener after any already set (metrics and tracing can both listen). */
export const listenForFinish = (exchange: Exchange, listener: FinishListener): void => {
  const before = exchange.onFinish;
  exchange.onFinish = before
    ? (done, status, elapsedMs) => {
        before(done, status, elapsedMs);
        listener(done, status, elapsedMs);
      }
    : listener;
};

/** The route label or span name of a request whose route was never known (refused before routing). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Applies each observer in turn; the first is outermost. */
export const composeObservers = (observers: readonly RequestObserver[]): RequestObserver => ({
  handler: (handler) => observers.reduceRight((inner, observer) => observer.handler(inner), handler),
  call: (call) => observers.reduceRight((inner, observer) => observer.call(inner), call),
});
