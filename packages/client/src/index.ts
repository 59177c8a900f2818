/*
 * tRPC's declarations name Disposable and AsyncDisposable, which only the esnext.disposable lib
 * (or @types/node) declares: this brings it into any app that imports the client, so a browser
 * app (lib ES2022 and DOM) compiles with skipLibCheck false. `preserve` keeps it in dist/index.d.ts.
 */
/// <reference lib="esnext.disposable" preserve="true" />
export { createPetstoreClient, type PetstoreClient, type PetstoreClientOptions } from './create-client.js';
export { pagesOfPets } from './pages-of-pets.js';
export type { AppRouter, Pet, PetStatus, NewPet, RouterInputs, RouterOutputs } from './generated/router-types.js';
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
