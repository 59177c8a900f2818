import { type Handler, router } from './trpc.js';
import { createPet, createPetHandler, getPet, getPetHandler, listPets, listPetsHandler } from './pets/procedures.js';

const procedures = { listPets, createPet, getPet };

export const appRouter = router(procedures);
export type AppRouter = typeof appRouter;

/** Each procedure's handler, by procedure name: what the service's transports run (see `Handler`). */
export const handlers: { readonly [Name in keyof typeof procedures]: Handler } = {
  listPets: listPetsHandler,
  createPet: createPetHandler,
  getPet: getPetHandler,
};
