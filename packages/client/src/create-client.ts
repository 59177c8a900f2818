import type { AppRouter } from './generated/router-types.js';
import { createTRPCClient, httpBatchStreamLink, httpLink, splitLink } from '@trpc/client';
import { forwardPagesLink } from './forward-pages-link.js';
import { MAX_BATCH_SIZE, TRPC_PREFIX } from './generated/server-constants.js';
import { type RetryOptions, retryingFetch } from './retry/retrying-fetch.js';

export interface PetstoreClientOptions extends RetryOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000`. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client whose procedures, inputs and results are all inferred from the server's router:
 * `await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 })` is a typed `Pet`. Queries made
 * in the same tick travel in one HTTP request, each answered as soon as it is ready (tRPC's
 * httpBatchStreamLink, the link tRPC recommends).
 *
 * A call that fails for want of a connection, in time, or because the service says "later" (429,
 * 503) is tried again (`maxRetries`, `timeoutMs`; see retrying-fetch.ts). Each create travels
 * alone, with an `Idempotency-Key` of its own kept across its retries: the service applies a key
 * to a whole HTTP request, so creates batched under one key would replay one another.
 */
export const createPetstoreClient = ({ url, apiKey, fetch = globalThis.fetch, ...retry }: PetstoreClientOptions) => {
  const endpoint = new URL(TRPC_PREFIX, url).toString();
  const authorization = `Bearer ${apiKey}`;
  const retrying = retryingFetch(fetch, retry);
  return createTRPCClient<AppRouter>({
    links: [
      forwardPagesLink(),
      splitLink({
        condition: (operation) => operation.type === 'mutation',
        true: httpLink({
          url: endpoint,
          // Called once per call (this link does not batch), before its first attempt.
          headers: () => ({ Authorization: authorization, 'Idempotency-Key': crypto.randomUUID() }),
          fetch: retrying,
        }),
        false: httpBatchStreamLink({ url: endpoint, headers: { Authorization: authorization }, maxItems: MAX_BATCH_SIZE, fetch: retrying }),
      }),
    ],
  });
};

export type PetstoreClient = ReturnType<typeof createPetstoreClient>;
