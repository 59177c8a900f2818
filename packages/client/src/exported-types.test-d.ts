import type { NewPet as NewPetSchema, PetPage as ServerPetPage } from '@petstore/core';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { describe, expectTypeOf, it } from 'vitest';
import {
  type CreatePetInput,
  type CreatePetOutput,
  type GetPetInput,
  type GetPetOutput,
  type ListPetsInput,
  type ListPetsOutput,
  type ListPetsQuery,
  type NewPet,
  type Pet,
  type PetPage,
  type PetstoreClient,
  type PetstoreErrorCode,
  type PetstoreErrorData,
  type PetstoreRestClient,
  type RestError,
  type RestSchemas,
  type RetryEvent,
  type PetstoreRestError,
  createPetstoreClient,
  isPetstoreError,
  pagesOfPets,
  restPagesOfPets,
} from './index.js';

// Type tests: vitest's typecheck mode compiles them and fails on a difference, or on a
// `@ts-expect-error` that finds no error; they never run.
declare const petstore: PetstoreClient;
declare const rest: PetstoreRestClient;

describe('the types an app reaches for', () => {
  it("NewPet is what createPet takes, as the contract says: status may be left out", () => {
    const rex: NewPet = { name: 'Rex', categoryId: 1 };
    expectTypeOf(rex).toEqualTypeOf<CreatePetInput>();
    // zod's input of the server's schema, where status has a default.
    expectTypeOf<NewPet>().toEqualTypeOf<(typeof NewPetSchema)['_zod']['input']>();
    // The OpenAPI document's NewPet says the same, without `| undefined` on the optional field.
    expectTypeOf<RestSchemas['schemas']['NewPet']>().toExtend<NewPet>();
    expectTypeOf<Required<NewPet>>().toExtend<Required<RestSchemas['schemas']['NewPet']>>();
    // @ts-expect-error a name is required
    const nameless: NewPet = { categoryId: 1 };
    expectTypeOf(nameless).toEqualTypeOf<NewPet>();
  });

  it('each operation has its input and output by name', () => {
    // tRPC types an input that may be left out as `| void`: the query, or nothing.
    expectTypeOf<ListPetsQuery>().toExtend<ListPetsInput>();
    expectTypeOf(petstore.listPets.query).toBeCallableWith();
    expectTypeOf<ListPetsOutput>().toEqualTypeOf<PetPage>();
    expectTypeOf<PetPage>().toEqualTypeOf<{ items: ServerPetPage['items']; nextCursor: string | null }>();
    expectTypeOf<GetPetInput>().toEqualTypeOf<{ petId: number }>();
    expectTypeOf<GetPetOutput>().toEqualTypeOf<Pet>();
    expectTypeOf<CreatePetOutput>().toEqualTypeOf<Pet>();
    expectTypeOf(petstore.listPets.query).parameter(0).toEqualTypeOf<ListPetsInput>();
    expectTypeOf(petstore.createPet.mutate).returns.resolves.toEqualTypeOf<CreatePetOutput>();
  });

  it("a failed call's code is a union on both transports, the same one", () => {
    expectTypeOf<PetstoreErrorCode>().toEqualTypeOf<TRPC_ERROR_CODE_KEY>();
    expectTypeOf<RestError['code']>().toEqualTypeOf<PetstoreErrorCode>();
    expectTypeOf<PetstoreErrorData>().toEqualTypeOf<{ code: PetstoreErrorCode; httpStatus: number }>();
    const error: unknown = undefined;
    if (isPetstoreError(error)) {
      expectTypeOf(error.data).toEqualTypeOf<PetstoreErrorData | null | undefined>();
      // @ts-expect-error a code that does not exist does not compile
      if (error.data?.code === 'NOT_FOUNDD') return;
    }
    expectTypeOf<PetstoreRestError['code']>().toEqualTypeOf<PetstoreErrorCode | undefined>();
  });

  it('both clients walk the pages, typed', () => {
    expectTypeOf(pagesOfPets(petstore, { status: 'sold' })).toEqualTypeOf<AsyncGenerator<Pet[], void, undefined>>();
    expectTypeOf(restPagesOfPets(rest, { status: 'sold', limit: 5 })).toEqualTypeOf<AsyncGenerator<Pet[], void, undefined>>();
    // @ts-expect-error the walk sets the cursor itself
    void restPagesOfPets(rest, { cursor: 'abc' });
    // @ts-expect-error a status the contract does not have
    void pagesOfPets(petstore, { status: 'lost' });
  });

  it('the retry options are typed', () => {
    createPetstoreClient({
      url: 'http://127.0.0.1:3000/petstore/',
      apiKey: 'pst_x',
      deadlineMs: 5_000,
      maxRetryDelayMs: 2_000,
      onRetry: (retry) => {
        expectTypeOf(retry).toEqualTypeOf<RetryEvent>();
      },
      queryLink: 'httpBatchLink',
    });
    // @ts-expect-error a link the client does not make
    createPetstoreClient({ url: 'http://127.0.0.1:3000', apiKey: 'pst_x', queryLink: 'wsLink' });
  });
});
