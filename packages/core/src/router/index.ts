import { router } from '../trpc.js';
import { createPet, getPet, listPets } from './pets.js';

export const appRouter = router({ listPets, createPet, getPet });
export type AppRouter = typeof appRouter;
