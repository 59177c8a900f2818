import { delayBeforeRetry, pause } from './backoff.js';

export interface RetryOptions {
  /** Attempts after the first one; 0 turns retrying off. */
  maxRetries?: number;
  /** How long one attempt may take, in milliseconds, before it is abandoned (and retried). */
  timeoutMs?: number;
}

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Answers that say "later", not "no": the quota (429) and an overloaded or degraded service (503). */
const RETRIED_STATUSES = new Set([429, 503]);

/**
 * Only a request that does the same thing when sent twice is retried: a read, or a create
 * carrying its `Idempotency-Key` (the service then replays the first answer).
 */
const isRepeatable = (request: Request) => request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');

/**
 * A fetch that retries a network error, a timeout, 429 and 503 with backoff and jitter, waiting
 * what `Retry-After` asks when the service says it. Every other answer, 4xx included, is final.
 * `fetchOnce` is given each attempt's signal in its options, to hand on as it gets them.
 */
export const retryingFetch = (
  fetchOnce: typeof globalThis.fetch,
  { maxRetries = DEFAULT_MAX_RETRIES, timeoutMs = DEFAULT_TIMEOUT_MS }: RetryOptions = {},
): typeof globalThis.fetch => {
  return async (input, init) => {
    const request = new Request(input, init);
    const caller = init?.signal ?? request.signal;
    const retries = isRepeatable(request) ? maxRetries : 0;
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      // The attempt's signal is fetch's own option, not a Request's: a Request follows another's
      // signal through a controller the garbage collector may take, and the timeout of an attempt
      // sent so then never reached it (docs/decisions/2026-11-29-client-timeout-and-the-garbage-collector.md).
      const signal = AbortSignal.any([caller, AbortSignal.timeout(timeoutMs)]);
      let response: Response;
      try {
        response = await fetchOnce(last ? request : request.clone(), { signal });
      } catch (error) {
        // The caller's own abort ends the call; a lost connection or a timeout is tried again.
        if (last || caller.aborted) throw error;
        await pause(delayBeforeRetry(attempt, null), caller);
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      await response.body?.cancel();
      await pause(delayBeforeRetry(attempt, response.headers.get('retry-after')), caller);
    }
  };
};
