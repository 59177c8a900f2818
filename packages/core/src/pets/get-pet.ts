import { TRPCError } from '@trpc/server';
import { defineQuery } from '../operation/define-operation.js';
import { GetPetParams, Pet } from './pet.js';

/** `getPet`: one animal by id, or 404. Deprecated in favour of `listPets`. */
export const getPet = defineQuery({
  meta: {
    scope: 'pets:read',
    deprecation: {
      since: new Date('2026-11-22T00:00:00Z'),
      sunset: new Date('2030-12-05T00:00:00Z'),
      successor: 'listPets',
    },
    openapi: {
      method: 'GET',
      path: '/pets/{petId}',
      tags: ['animals'],
      summary: 'Get an animal (deprecated)',
      description:
        'Deprecated: to be removed on 5 December 2030. Use `GET /pets` with the `status` filter instead.',
      deprecated: true,
      successDescription: 'The requested animal.',
      errorResponses: {
        400: '`petId` is not a positive integer.',
        404: 'The animal could not be found.',
      },
    },
  },
  input: GetPetParams,
  output: Pet,
  resolve: async ({ ctx, input }) => {
    const pet = await ctx.db.pets.findById(input.petId);
    if (!pet) throw new TRPCError({ code: 'NOT_FOUND', message: `No animal has id ${input.petId}.` });
    return pet;
  },
});
