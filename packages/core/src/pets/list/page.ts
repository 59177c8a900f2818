import { z } from 'zod';
import type { PetRecords } from '../../storage/database.js';
import { encodeCursor } from './cursor.js';
import type { ListPetsInput } from './list-query.js';
import { Pets } from '../pet.js';

/**
 * A page as tRPC clients want it (`useInfiniteQuery` reads `nextCursor` from the result): the
 * items, and the cursor of the following page, null on the last one. The REST interface sends the
 * items as its body and the cursor as a `Link: rel="next"` header (see the procedure's `paginated`
 * meta).
 */
export const PetPage = z
  .strictObject({
    items: Pets,
    nextCursor: z.string().nullable().meta({ description: 'The `cursor` of the next page; null on the last page.' }),
  })
  .meta({ id: 'PetPage', description: 'A page of animals and the cursor of the next one.' });
export type PetPage = z.output<typeof PetPage>;

/**
 * One page of animals by ascending id. It asks for one animal more than the page holds: that extra
 * row is how it knows another page exists, so a cursor never leads to an empty page.
 */
export const readPetPage = async (records: PetRecords, { limit, status, cursor }: ListPetsInput): Promise<PetPage> => {
  const rows = await records.page({ afterId: cursor ?? 0, status, take: limit + 1 });
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(items[limit - 1]?.id ?? 0) };
};
