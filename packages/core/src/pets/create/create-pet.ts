import { handler } from '../../trpc.js';
import { NewPet } from '../pet.js';
import { addPet } from './add-pet.js';

/** `createPet`: adds the animal, once per `Idempotency-Key`, and tells the transport of a replay. */
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
