import { TRPCError } from '@trpc/server';
import { handler } from '../trpc.js';
import { GetPetParams } from './pet.js';

/** `getPet`: one animal by id, or 404. */
export const getPetHandler = handler({
  input: GetPetParams,
  resolve: async ({ ctx, input }) => {
    const pet = await ctx.db.pets.findById(input.petId);
    if (!pet) throw new TRPCError({ code: 'NOT_FOUND', message: `No animal has id ${input.petId}.` });
    return pet;
  },
});
