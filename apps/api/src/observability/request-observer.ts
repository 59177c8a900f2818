import type { callOperation } from '@petstore/core';
import type { RequestContext, FinishListener } from '../http/request-context.js';
import type { Handler } from '../http/reply.js';

export type CallOperation = typeof callOperation;

/** What answers a request: a transport's `serve`. */
type Serve = Handler['serve'];

/** What refuses an exchange as a whole: a transport's `refuse`, which the front door calls before any `serve`. */
type Refuse = Handler['refuse'];

/**
 * What metrics and tracing add to the request path when they are on: a wrapper around each
 * transport's `serve` (it sees the request start and sets `onFinish`), optionally one around its
 * `refuse` (the answers the front door gives before any transport serves: shedding, a connection
 * past the limit, a request without Host or Node could not parse), and one around every operation
 * call. All are applied once, at start-up; when none is on, nothing is wrapped.
 */
export interface RequestObserver {
  serve(serve: Serve): Serve;
  refuse?(refuse: Refuse): Refuse;
  call(call: CallOperation): CallOperation;
}

/** Adds a finish listener after any already set (metrics and tracing can both listen). */
export const listenForFinish = (context: RequestContext, listener: FinishListener): void => {
  const before = context.onFinish;
  context.onFinish = before
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
  serve: (serve) => observers.reduceRight((inner, observer) => observer.serve(inner), serve),
  refuse: (refuse) => observers.reduceRight((inner, observer) => observer.refuse?.(inner) ?? inner, refuse),
  call: (call) => observers.reduceRight((inner, observer) => observer.call(inner), call),
});
