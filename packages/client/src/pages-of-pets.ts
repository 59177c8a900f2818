import type { ListPetsQuery, Pet } from './generated/router-types.js';
import type { PetstoreClient } from './create-client.js';

/**
 * Every page of `listPets`, first to last, following each page's `nextCursor`. Animals added while
 * the pages are walked appear at the end; none is skipped or repeated.
 */
export async function* pagesOfPets(
  client: PetstoreClient,
  query: Omit<ListPetsQuery, 'cursor'> = {},
): AsyncGenerator<Pet[], void, undefined> {
  let cursor: string | null = null;
  do {
    const page = await client.listPets.query({ ...query, ...(cursor !== null && { cursor }) });
    yield page.items;
    cursor = page.nextCursor;
  } while (cursor !== null);
}
