import type { ListPetsQuery, Pet } from '@petstore/core';
import type { PetstoreClient } from './create-client.js';
import type { PageContext } from './next-page-link.js';

/**
 * Every page of `listPets`, first to last, following the server's cursors. Animals added while
 * the pages are walked appear at the end; none is skipped or repeated.
 */
export async function* pagesOfPets(
  client: PetstoreClient,
  query: Omit<ListPetsQuery, 'cursor'> = {},
): AsyncGenerator<Pet[], void, undefined> {
  let cursor: string | undefined;
  do {
    const context: PageContext = {};
    yield await client.listPets.query({ ...query, ...(cursor && { cursor }) }, { context });
    cursor = context.nextCursor;
  } while (cursor !== undefined);
}
