import createClient from 'openapi-fetch';
import type { paths } from './openapi-types.js';

export interface PetstoreRestClientOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000`; paths are under its `/v1`. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * For TypeScript apps that speak REST rather than tRPC: typed calls generated from the OpenAPI
 * document (`openapi.json`), e.g. `await petstore.GET('/pets', { params: { query: { limit: 5 } } })`.
 */
export const createPetstoreRestClient = ({ url, apiKey, fetch }: PetstoreRestClientOptions) =>
  createClient<paths>({
    baseUrl: new URL('/v1', url).toString(),
    headers: { Authorization: `Bearer ${apiKey}` },
    ...(fetch && { fetch }),
  });

export type PetstoreRestClient = ReturnType<typeof createPetstoreRestClient>;
export type { components as RestSchemas, paths as RestPaths } from './openapi-types.js';
