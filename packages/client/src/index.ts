/*
 * tRPC's declarations name Disposable and AsyncDisposable, which only the esnext.disposable lib
 * (or @types/node) declares: this brings it into any app that imports the client, so a browser
 * app (lib ES2022 and DOM) compiles with skipLibCheck false. `preserve` keeps it in dist/index.d.ts.
 */
/// <reference lib="esnext.disposable" preserve="true" />
export { createPetstoreClient, petstoreLinks, type PetstoreClient, type PetstoreClientOptions, type QueryLink } from './create-client.js';
export { pagesOfPets } from './pages-of-pets.js';
export type {
  AppRouter,
  CreatePetInput,
  CreatePetOutput,
  ErrorShape as PetstoreErrorShape,
  GetPetInput,
  GetPetOutput,
  ListPetsInput,
  ListPetsOutput,
  ListPetsQuery,
  NewPet,
  Pet,
  PetPage,
  PetStatus,
  PetstoreErrorCode,
  RouterInputs,
  RouterOutputs,
} from './generated/router-types.js';
export { TRPCClientError } from '@trpc/client';
export { isPetstoreError, requestIdOf, type PetstoreClientError, type PetstoreErrorData } from './errors.js';
export {
  DEFAULT_DEADLINE_MS,
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_RETRY_DELAY_MS,
  DEFAULT_TIMEOUT_MS,
  DeadlineExceededError,
  type RetryEvent,
  type RetryOptions,
} from './retry/retry-options.js';
export { UnexpectedResponseError } from './retry/unexpected-response.js';
export {
  createPetstoreRestClient,
  type PetstoreRestClient,
  type PetstoreRestClientOptions,
  type RestError,
  type RestPaths,
  type RestSchemas,
  type RestValidationIssue,
} from './rest/create-rest-client.js';
export { PetstoreRestError, restPagesOfPets } from './rest/rest-pages-of-pets.js';
