import createClient from 'openapi-fetch';
import { REST_PREFIX } from '../generated/server-constants.js';
import { underBase } from '../base-url.js';
import type { RetryOptions } from '../retry/retry-options.js';
import { retryingFetch } from '../retry/retrying-fetch.js';
import type { components, paths } from '../generated/openapi-types.js';

export interface PetstoreRestClientOptions extends RetryOptions {
  /** The service's base address, e.g. `http://127.0.0.1:3000` or `https://example.com/petstore/`; its path is kept, and paths are under its `/v1`. */
  url: string | URL;
  apiKey: string;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
}

/**
 * For TypeScript apps that speak REST rather than tRPC: typed calls generated from the OpenAPI
 * document (`openapi.json`), e.g. `await petstore.GET('/pets', { params: { query: { limit: 5 } } })`.
 * Retries as the tRPC client does; each POST gets an `Idempotency-Key` unless it brings its own.
 */
export const createPetstoreRestClient = ({ url, apiKey, fetch = globalThis.fetch, ...retry }: PetstoreRestClientOptions) => {
  const client = createClient<paths>({
    baseUrl: underBase(url, REST_PREFIX),
    headers: { Authorization: `Bearer ${apiKey}` },
    fetch: retryingFetch(fetch, retry),
  });
  client.use({
    onRequest: ({ request }) => {
      if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
      return request;
    },
  });
  return client;
};

export type PetstoreRestClient = ReturnType<typeof createPetstoreRestClient>;
export type { components as RestSchemas, paths as RestPaths } from '../generated/openapi-types.js';
/** The body of every REST error: `code` (a `PetstoreErrorCode`), `message`, `status`, and on a 400 for bad input, `issues`. */
export type RestError = components['schemas']['Error'];
export type RestValidationIssue = components['schemas']['ValidationIssue'];
