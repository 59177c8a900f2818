import type { AppRouter } from './generated/router-types.js';
import { type TRPCLink, createTRPCClient, httpBatchLink, httpBatchStreamLink, httpLink, splitLink } from '@trpc/client';
import { underBase } from './base-url.js';
import { forwardPagesLink } from './forward-pages-link.js';
import { MAX_BATCH_SIZE, TRPC_PREFIX } from './generated/server-constants.js';
import { idempotencyKeyOf, retryLink } from './retry/retry-link.js';
import type { RetryOptions } from './retry/retry-options.js';
import { servicesAnswersOnly } from './retry/unexpected-response.js';

/** The tRPC links a query may travel by: each speaks to the service, and each is retried the same way. */
export type QueryLink = 'httpBatchStreamLink' | 'httpBatchLink' | 'httpLink';

export interface PetstoreClientOptions extends RetryOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000` or `https://example.com/petstore/`; its path is kept. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
  /**
   * How queries travel: `httpBatchStreamLink` (the default: the calls of a tick in one request,
   * each answer as soon as it is ready), `httpBatchLink` (one answer for all) or `httpLink` (a
   * request per call). Creates always travel alone, by `httpLink`.
   */
  queryLink?: QueryLink;
}

/**
 * The links `createPetstoreClient` makes its client of, for an app that builds tRPC's client
 * itself around them (`createTRPCClient<AppRouter>({ links: [loggerLink(), ...petstoreLinks(options)] })`):
 * the retries, then the link that sends.
 */
export const petstoreLinks = ({ url, apiKey, fetch = globalThis.fetch, queryLink = 'httpBatchStreamLink', ...retry }: PetstoreClientOptions): TRPCLink<AppRouter>[] => {
  const endpoint = underBase(url, TRPC_PREFIX);
  const authorization = `Bearer ${apiKey}`;
  const checked = servicesAnswersOnly(fetch);
  const queries = {
    httpBatchStreamLink: () => httpBatchStreamLink({ url: endpoint, headers: { Authorization: authorization }, maxItems: MAX_BATCH_SIZE, fetch: checked }),
    httpBatchLink: () => httpBatchLink({ url: endpoint, headers: { Authorization: authorization }, maxItems: MAX_BATCH_SIZE, fetch: checked }),
    httpLink: () => httpLink({ url: endpoint, headers: { Authorization: authorization }, fetch: checked }),
  }[queryLink]();
  return [
    forwardPagesLink(),
    retryLink(retry),
    splitLink({
      condition: (operation) => operation.type === 'mutation',
      // The service applies an Idempotency-Key to a whole HTTP request: creates batched under one
      // key would replay one another, so each travels alone, with the key its call was given.
      true: httpLink({
        url: endpoint,
        headers: ({ op }) => {
          const key = idempotencyKeyOf(op);
          return { Authorization: authorization, ...(key !== undefined && { 'Idempotency-Key': key }) };
        },
        fetch: checked,
      }),
      false: queries,
    }),
  ];
};

/**
 * A client whose procedures, inputs and results are all inferred from the server's router:
 * `await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 })` is a typed `Pet`. Queries made
 * in the same tick travel in one HTTP request, each answered as soon as it is ready (tRPC's
 * httpBatchStreamLink, the link tRPC recommends), unless `queryLink` says otherwise.
 *
 * A call the service answers "later" (429, 503), or that gets no answer, is tried again under the
 * retry options (retry/with-retries.ts), whichever link carries it.
 */
export const createPetstoreClient = (options: PetstoreClientOptions) => createTRPCClient<AppRouter>({ links: petstoreLinks(options) });

export type PetstoreClient = ReturnType<typeof createPetstoreClient>;
