import { router } from './trpc.js';
import { createPet } from './pets/create/create-pet.js';
import { getPet } from './pets/get-pet.js';
import { listPets } from './pets/list/list-pets.js';

/** Every operation of the interface, by procedure name: the one list of them. */
export const operations = { listPets, createPet, getPet };

type Procedures = { [Name in keyof typeof operations]: (typeof operations)[Name]['procedure'] };

const procedures = Object.fromEntries(Object.entries(operations).map(([name, operation]) => [name, operation.procedure])) as Procedures;

export const appRouter = router(procedures);
export type AppRouter = typeof appRouter;
