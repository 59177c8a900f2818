import type { AppRouter } from './generated/router-types.js';
import { createTRPCClient, httpBatchLink } from '@trpc/client';

/** The most calls the server takes in one batch (`MAX_BATCH_SIZE` in apps/api's tRPC handler). */
export const MAX_BATCH_SIZE = 50;

export interface PetstoreClientOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000`. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client whose procedures, inputs and results are all inferred from the server's router:
 * `await petstore.createPet.mutate({ name: 'Rex', categoryId: 1 })` is a typed `Pet`. Calls made
 * in the same tick travel in one HTTP request (tRPC's batch link).
 */
export const createPetstoreClient = ({ url, apiKey, fetch }: PetstoreClientOptions) =>
  createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: new URL('/trpc', url).toString(),
        headers: { Authorization: `Bearer ${apiKey}` },
        maxItems: MAX_BATCH_SIZE,
        ...(fetch && { fetch }),
      }),
    ],
  });

export type PetstoreClient = ReturnType<typeof createPetstoreClient>;
