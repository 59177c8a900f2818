export { createPetstoreClient, type PetstoreClient, type PetstoreClientOptions } from './create-client.js';
export { pagesOfPets } from './pages-of-pets.js';
export type { AppRouter, Pet, PetStatus, NewPet } from './generated/router-types.js';
export { TRPCClientError } from '@trpc/client';
export { isPetstoreError, requestIdOf } from './errors.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type RetryOptions } from './retry/retrying-fetch.js';
export {
  createPetstoreRestClient,
  type PetstoreRestClient,
  type PetstoreRestClientOptions,
  type RestPaths,
  type RestSchemas,
} from './rest/create-rest-client.js';
