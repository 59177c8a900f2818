import { handler } from '../../trpc.js';
import { ListPetsQuery } from './list-query.js';
import { readPetPage } from './page.js';

/** `listPets`: a page of animals by ascending id, from the cursor on. */
export const listPetsHandler = handler({
  input: ListPetsQuery,
  resolve: async ({ ctx, input }) => readPetPage(ctx.db.pets, input),
});
