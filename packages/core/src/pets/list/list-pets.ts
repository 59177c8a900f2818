import { defineQuery } from '../../operation/define-operation.js';
import { ListPetsQuery } from './list-query.js';
import { PetPage, readPetPage } from './page.js';

/** `listPets`: a page of animals by ascending id, from the cursor on. */
export const listPets = defineQuery({
  meta: {
    scope: 'pets:read',
    paginated: true,
    openapi: {
      method: 'GET',
      path: '/pets',
      tags: ['animals'],
      summary: 'List animals',
      description:
        'Animals by ascending id, a page at a time. When more follow, the `Link` header holds the ' +
        'next page (`rel="next"`); the last page has none.',
      successDescription: 'The list (paginated).',
      errorResponses: { 400: 'A query parameter is invalid.' },
    },
  },
  input: ListPetsQuery,
  output: PetPage,
  resolve: ({ ctx, input }) => readPetPage(ctx.db.pets, input),
});
