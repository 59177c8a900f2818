import { TRPCError } from '@trpc/server';
import { readPetPage } from '../pets/page.js';
import { ListPetsQuery } from '../schemas/list-pets.js';
import { GetPetParams, NewPet, Pet, Pets } from '../schemas/pet.js';
import { authedProcedure } from '../trpc.js';

const tags = ['animals'];

export const listPets = authedProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/pets',
      operationId: 'listPets',
      tags,
      summary: 'List animals',
      description:
        'Animals by ascending id, a page at a time. When more follow, the `Link` header holds the ' +
        'next page (`rel="next"`); the last page has none.',
      errorResponses: { 400: 'A query parameter is invalid.', 401: 'Missing or invalid API key.' },
    },
  })
  .input(ListPetsQuery)
  .output(Pets)
  .query(async ({ ctx, input }) => {
    const page = await readPetPage(ctx.db.pets, input);
    if (page.next) ctx.response.nextPage = page.next;
    return page.pets;
  });

export const createPet = authedProcedure
  .meta({
    successStatus: 201,
    openapi: {
      method: 'POST',
      path: '/pets',
      operationId: 'createPet',
      tags,
      summary: 'Add an animal',
      successDescription: 'Animal added; `Location` holds its address.',
      errorResponses: {
        400: 'Body is missing required fields or holds invalid values.',
        401: 'Missing or invalid API key.',
        413: 'Body larger than 64 KiB.',
        415: 'Body is not sent as application/json.',
      },
    },
  })
  .input(NewPet)
  .output(Pet)
  .mutation(({ ctx, input }) => ctx.db.pets.insert(input));

export const getPet = authedProcedure
  .meta({
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
      errorResponses: {
        400: '`petId` is not a positive integer.',
        401: 'Missing or invalid API key.',
        404: 'The animal could not be found.',
      },
    },
  })
  .input(GetPetParams)
  .output(Pet)
  .query(async ({ ctx, input }) => {
    const pet = await ctx.db.pets.findById(input.petId);
    if (!pet) throw new TRPCError({ code: 'NOT_FOUND', message: `No animal has id ${input.petId}.` });
    return pet;
  });
