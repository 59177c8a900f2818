import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { addPet } from './create/add-pet.js';
import { IdempotencyKey } from './create/idempotency.js';
import { PetPage, readPetPage } from './list/page.js';
import { ListPetsQuery } from './list/list-query.js';
import { GetPetParams, NewPet, Pet } from './pet.js';
import {
  DeprecationHeader,
  IdempotentReplayedHeader,
  LocationHeader,
  NextPageLinkHeader,
  SuccessorLinkHeader,
  SunsetHeader,
} from './response-headers.js';
import { authedProcedure, handler, resultOf } from '../trpc.js';

const tags = ['animals'];

export const listPetsHandler = handler({
  input: ListPetsQuery,
  resolve: async ({ ctx, input }) => readPetPage(ctx.db.pets, input),
});

export const listPets = authedProcedure
  .meta({
    scope: 'pets:read',
    paginated: true,
    openapi: {
      method: 'GET',
      path: '/pets',
      operationId: 'listPets',
      tags,
      summary: 'List animals',
      description:
        'Animals by ascending id, a page at a time. When more follow, the `Link` header holds the ' +
        'next page (`rel="next"`); the last page has none.',
      successDescription: 'The list (paginated).',
      responseHeaders: z.object({ Link: NextPageLinkHeader.optional() }),
      errorResponses: { 400: 'A query parameter is invalid.' },
    },
  })
  .input(listPetsHandler.input)
  .output(resultOf(PetPage))
  .query(listPetsHandler.resolve);

export const createPetHandler = handler({
  input: NewPet,
  resolve: async ({ ctx, input }) => {
    const { pet, replayed } = await addPet(ctx.db.pets, {
      pet: input,
      apiKeyId: ctx.principal.keyId,
      idempotencyKey: ctx.idempotencyKey,
      now: new Date(),
    });
    if (replayed) ctx.response.replayed = true;
    return pet;
  },
});

export const createPet = authedProcedure
  .meta({
    scope: 'pets:write',
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/pets',
      operationId: 'createPet',
      tags,
      summary: 'Add an animal',
      description:
        'Adds an animal and assigns its `id`. `name` is stored trimmed; `status` defaults to `available`. ' +
        'With an `Idempotency-Key`, a retry of the same request within 24 hours returns the first ' +
        'response (with `Idempotent-Replayed: true`) and adds nothing.',
      successDescription: 'Animal added.',
      requestHeaders: z.object({
        'Idempotency-Key': IdempotencyKey.optional().meta({
          description:
            'Makes the request safe to retry: the same key with the same body, from the same API key, ' +
            'within 24 hours, adds the animal once. The same key with another body is refused (400).',
          examples: ['3f1c9a0e-7b2d-4c55-9e61-2a8d0f4b7c13'],
        }),
      }),
      responseHeaders: z.object({
        Location: LocationHeader,
        'Idempotent-Replayed': IdempotentReplayedHeader.optional(),
      }),
      errorResponses: {
        400: 'Body is missing required fields or holds invalid values, or the Idempotency-Key was used with another body.',
      },
    },
  })
  .input(createPetHandler.input)
  .output(resultOf(Pet))
  .mutation(createPetHandler.resolve);

export const getPetHandler = handler({
  input: GetPetParams,
  resolve: async ({ ctx, input }) => {
    const pet = await ctx.db.pets.findById(input.petId);
    if (!pet) throw new TRPCError({ code: 'NOT_FOUND', message: `No animal has id ${input.petId}.` });
    return pet;
  },
});

export const getPet = authedProcedure
  .meta({
    scope: 'pets:read',
    deprecation: {
      since: new Date('2026-11-22T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: 'listPets',
    },
    openapi: {
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'getPet',
      tags,
      summary: 'Get an animal (deprecated)',
      description:
        'Deprecated: to be removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
      deprecated: true,
      successDescription: 'The requested animal.',
      responseHeaders: z.object({
        Deprecation: DeprecationHeader,
        Sunset: SunsetHeader,
        Link: SuccessorLinkHeader,
      }),
      errorResponses: {
        400: '`petId` is not a positive integer.',
        404: 'The animal could not be found.',
      },
    },
  })
  .input(getPetHandler.input)
  .output(resultOf(Pet))
  .query(getPetHandler.resolve);
