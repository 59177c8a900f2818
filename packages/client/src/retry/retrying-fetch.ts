import { RETRIED_STATUSES, type RetryOptions } from './retry-options.js';
import { withRetries } from './with-retries.js';

/**
 * Only a request that does the same thing when sent twice is sent again after no answer: a read,
 * or a create carrying its `Idempotency-Key` (the service then replays the first answer).
 */
const isRepeatable = (request: Request) => request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');

/**
 * The REST client's fetch: each request under the clients' one retry policy (`withRetries`), the
 * refusal read from the response's status. `fetchOnce` is given each attempt's signal in its
 * options, to hand on as it gets them.
 */
export const retryingFetch =
  (fetchOnce: typeof globalThis.fetch, options: RetryOptions = {}): typeof globalThis.fetch =>
  (input, init) => {
    const request = new Request(input, init);
    return withRetries<Response>(options, {
      name: `${request.method} ${new URL(request.url).pathname}`,
      repeatable: isRepeatable(request),
      caller: init?.signal ?? request.signal,
      // The attempt's signal is fetch's own option, not a Request's: a Request follows another's
      // signal through a controller the garbage collector may take.
      attempt: (signal, last) => fetchOnce(last ? request : request.clone(), { signal }),
      setbackOf: (outcome) => {
        if ('error' in outcome) return { error: outcome.error };
        const { status, headers } = outcome.value;
        return RETRIED_STATUSES.has(status) ? { status, retryAfter: headers.get('retry-after') } : undefined;
      },
      discard: async (response) => {
        await response.body?.cancel();
      },
    });
  };
