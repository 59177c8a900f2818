import type { AppRouter } from '@petstore/core';
import { createTRPCClient, httpLink } from '@trpc/client';
import { nextPageLink } from './next-page-link.js';

export interface PetstoreClientOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000`. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client whose procedures, inputs and results are all inferred from the server's router:
 * `await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 })` is a typed `Pet`.
 */
export const createPetstoreClient = ({ url, apiKey, fetch }: PetstoreClientOptions) =>
  createTRPCClient<AppRouter>({
    links: [
      nextPageLink(),
      httpLink({
        url: new URL('/trpc', url).toString(),
        headers: { Authorization: `Bearer ${apiKey}` },
        ...(fetch && { fetch }),
      }),
    ],
  });

export type PetstoreClient = ReturnType<typeof createPetstoreClient>;
