import { type Handler, router } from './trpc.js';
import { createPetHandler } from './pets/create/create-pet.js';
import { getPetHandler } from './pets/get-pet.js';
import { listPetsHandler } from './pets/list/list-pets.js';
import { createPet, getPet, listPets } from './pets/procedures.js';

const procedures = { listPets, createPet, getPet };

export const appRouter = router(procedures);
export type AppRouter = typeof appRouter;

/** Each procedure's handler, by procedure name: what the service's transports run (see `Handler`). */
export const handlers: { readonly [Name in keyof typeof procedures]: Handler } = {
  listPets: listPetsHandler,
  createPet: createPetHandler,
  getPet: getPetHandler,
};
